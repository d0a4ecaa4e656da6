import Crypto
import Foundation
import Synchronization
import VarselCore

/// The id of one person's key: sixteen lowercase hexadecimal digits, chosen at random when the key is made.
///
/// A contact row names its key by this id (never the other way round), so a database restored from a backup, whose
/// contact ids may be handed out again, can never give a new person someone else's key.
public struct PersonKeyID: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init?(rawValue: String) {
        guard rawValue.utf8.count == 16, rawValue.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            return nil
        }
        self.rawValue = rawValue
    }

    /// A new id, at random.
    static func random() -> PersonKeyID {
        PersonKeyID(rawValue: (0..<8).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined())!
    }

    public var description: String { rawValue }
}

/// What a key store holds for one key id.
public enum PersonKeyState: Sendable, Equatable {
    /// The key, wrapped by a data key (``DataKeyring``'s sealed form).
    case live(wrapped: String)
    /// The key was destroyed when the person's details were erased; only the id and the time are left.
    case destroyed(at: Date)
}

/// Where the people's keys are kept: apart from the database, so that its backups hold no key (see ``PersonKeyring``).
public protocol PersonKeyStore: Sendable {
    /// Where the keys are, as an operator would name it (a file's path).
    var location: String { get }
    /// The key `id`, destroyed or not; nil when the store never held it.
    func state(of id: PersonKeyID) throws -> PersonKeyState?
    /// Stores a new key; its id is new.
    func add(_ id: PersonKeyID, wrapped: String) throws
    /// Removes the key `id` for good (not left in free pages or a log), leaving that it was destroyed at `date`.
    /// Destroying a destroyed key changes nothing.
    func destroy(_ id: PersonKeyID, at date: Date) throws
    /// Every live key, wrapped.
    func wrappedKeys() throws -> [(id: PersonKeyID, wrapped: String)]
    /// Replaces a live key's wrapping `old` with `new` (a data key rotation); false when it was no longer `old`.
    func rewrap(_ id: PersonKeyID, from old: String, to new: String) throws -> Bool
    /// The ids of the destroyed keys among `ids`, with when each was destroyed.
    func destroyed(among ids: [PersonKeyID]) throws -> [PersonKeyID: Date]
    /// How many keys are live and how many were destroyed.
    func counts() throws -> (live: Int, destroyed: Int)
}

/// The keys that seal each person's details apart: a key per person visited, wrapped by the operator's data key and
/// kept in a key store outside the database, destroyed when the person's details are erased.
///
/// A backup of the database taken before an erasure holds that person's details only sealed under their key; once the
/// key is gone from the key store, no backup of the database opens them again. The promise lasts as long as the key
/// store's own backups are kept (`docs/deploy.md`).
///
/// A value sealed under a person's key is `U+0001`, `p`, the key's id, `:`, then the base64 of AES-GCM's nonce,
/// ciphertext and tag, with the field's name and the key's id as associated data. A value of a destroyed key opens as
/// the empty text: the details are gone, as they are from an erased row.
public final class PersonKeyring: Sendable {
    /// The key store.
    public let store: any PersonKeyStore
    /// The data keys that wrap the people's keys.
    let wrapping: DataKeyring
    /// Keys unwrapped so far. A key this instance destroys leaves at once; one another instance destroys stays here
    /// until a restart, which is harmless: the rows sealed under it are already erased in the shared database.
    private let unwrapped = Mutex<[PersonKeyID: SymmetricKey]>([:])
    static let tag: UInt8 = 0x70  // "p"
    /// How long backups of the key store are kept, as `docs/deploy.md` advises: within this time an erasure reaches
    /// every backup, of the database and of the key store.
    public static let backupRetentionDays = 7

    public init(store: any PersonKeyStore, wrapping: DataKeyring) {
        self.store = store
        self.wrapping = wrapping
    }

    /// Makes a new key, stored in the key store before anything is sealed under it; returns its id.
    public func newKey() throws -> PersonKeyID {
        let id = PersonKeyID.random()
        let key = SymmetricKey(size: .bits256)
        try store.add(id, wrapped: wrap(key, id: id))
        unwrapped.withLock { $0[id] = key }
        return id
    }

    /// `text` sealed under the key `id`; the empty text stays empty, and so does anything said of a person whose key
    /// was destroyed: their details are not kept.
    public func seal(_ text: String, field: SealedField, key id: PersonKeyID) throws -> String {
        if text.isEmpty { return text }
        guard let key = try key(id) else { return "" }
        let box = try! AES.GCM.seal(Data(text.utf8), using: key, authenticating: Self.associatedData(field, id))
        return SealedColumn.personMarker + id.rawValue + ":" + box.combined!.base64EncodedString()
    }

    /// The text `stored` holds; the empty text when its key was destroyed.
    public func open(_ stored: String, field: SealedField) throws -> String {
        guard let (id, sealed) = Self.parts(stored) else { throw StoreError.unknownStoredValue(column: field.rawValue) }
        guard let key = try key(id) else { return "" }
        guard let bytes = Data(base64Encoded: String(sealed)), let box = try? AES.GCM.SealedBox(combined: bytes),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Self.associatedData(field, id))
        else { throw StoreError.unknownStoredValue(column: field.rawValue) }
        return String(decoding: plain, as: UTF8.self)
    }

    /// Destroys the key `id` (see ``PersonKeyStore/destroy(_:at:)``).
    public func destroy(_ id: PersonKeyID, at date: Date) throws {
        unwrapped.withLock { _ = $0.removeValue(forKey: id) }
        try store.destroy(id, at: date)
        // A read that found the key live just before may have put it back meanwhile.
        unwrapped.withLock { _ = $0.removeValue(forKey: id) }
    }

    /// Whether `stored` is sealed under a person's key.
    public static func isPersonSealed(_ stored: String) -> Bool {
        var bytes = stored.utf8.makeIterator()
        return bytes.next() == 0x01 && bytes.next() == tag
    }

    /// The id of the person's key that sealed `stored`, or nil.
    public static func keyID(of stored: String) -> PersonKeyID? { parts(stored)?.id }

    /// Wraps every key not wrapped by the current data key under it; returns how many.
    public func rewrapStale() throws -> Int {
        let current = DataKeyring.prefix(keyID: wrapping.currentID)
        var count = 0
        for (id, wrapped) in try store.wrappedKeys() where !wrapped.hasPrefix(current) {
            let key = try unwrap(wrapped, id: id)
            if try store.rewrap(id, from: wrapped, to: wrap(key, id: id)) { count += 1 }
        }
        return count
    }

    /// How many people's keys each data key wraps, by the data key's id.
    public func wrappingKeyCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (_, wrapped) in try store.wrappedKeys() {
            if let id = DataKeyring.keyID(of: wrapped) { counts[id, default: 0] += 1 }
        }
        return counts
    }

    // MARK: Keys

    private func key(_ id: PersonKeyID) throws -> SymmetricKey? {
        if let key = unwrapped.withLock({ $0[id] }) { return key }
        switch try store.state(of: id) {
        case nil: throw StoreError.personKeyMissing(keyID: id.rawValue)
        case .destroyed: return nil
        case let .live(wrapped):
            let key = try unwrap(wrapped, id: id)
            unwrapped.withLock { $0[id] = key }
            return key
        }
    }

    /// The key as the key store keeps it: its id and bytes, sealed by the data key, so a wrapped key copied to another
    /// id does not open.
    private func wrap(_ key: SymmetricKey, id: PersonKeyID) -> String {
        wrapping.seal(id.rawValue + ":" + key.withUnsafeBytes { Data($0).base64EncodedString() }, field: .personKey)
    }

    private func unwrap(_ wrapped: String, id: PersonKeyID) throws -> SymmetricKey {
        let text = try wrapping.open(wrapped, field: .personKey)
        let prefix = id.rawValue + ":"
        guard text.hasPrefix(prefix), let bytes = Data(base64Encoded: String(text.dropFirst(prefix.count))), bytes.count == 32 else {
            throw StoreError.unknownStoredValue(column: SealedField.personKey.rawValue)
        }
        return SymmetricKey(data: bytes)
    }

    private static func associatedData(_ field: SealedField, _ id: PersonKeyID) -> Data {
        Data((field.rawValue + "/" + id.rawValue).utf8)
    }

    private static func parts(_ stored: String) -> (id: PersonKeyID, sealed: Substring)? {
        guard isPersonSealed(stored) else { return nil }
        let rest = stored.dropFirst(2)
        guard let colon = rest.firstIndex(of: ":"), let id = PersonKeyID(rawValue: String(rest[..<colon])) else { return nil }
        return (id, rest[rest.index(after: colon)...])
    }
}

/// A contact's key as the database names it, for keeping erasure and the key store in step.
public struct ContactKeyRow: Sendable, Equatable {
    public var contactID: ContactID
    public var key: PersonKeyID
    public var isErased: Bool

    public init(contactID: ContactID, key: PersonKeyID, isErased: Bool) {
        self.contactID = contactID
        self.key = key
        self.isErased = isErased
    }
}

/// A contact erased in one transaction, and the key its details were sealed under, destroyed after it commits.
public struct ErasedContact: Sendable {
    public var items: [NotificationItem]
    public var key: PersonKeyID?

    public init(items: [NotificationItem], key: PersonKeyID?) {
        self.items = items
        self.key = key
    }
}

extension PersonKeyring {
    /// Brings the key store and the database's erasures into step: destroys the keys of erased people that are still
    /// live (an erasure cut short after its transaction), and returns the people whose keys were destroyed but whose
    /// rows are not erased (a database restored from a backup taken before their erasure), with when, to be erased.
    /// Throws ``StoreError/personKeyMissing(keyID:)`` when a person's key is unknown to the key store: it is not this
    /// database's key store, and nothing is changed.
    public func reconcile(_ rows: [ContactKeyRow], at date: Date) throws -> [(contactID: ContactID, destroyedAt: Date)] {
        let live = Set(try store.wrappedKeys().map(\.id))
        let destroyed = try store.destroyed(among: rows.map(\.key).filter { !live.contains($0) })
        if let unknown = rows.first(where: { !$0.isErased && !live.contains($0.key) && destroyed[$0.key] == nil }) {
            throw StoreError.personKeyMissing(keyID: unknown.key.rawValue)
        }
        for row in rows where row.isErased && destroyed[row.key] == nil { try destroy(row.key, at: date) }
        return rows.filter { !$0.isErased }.compactMap { row in destroyed[row.key].map { (row.contactID, $0) } }
    }
}

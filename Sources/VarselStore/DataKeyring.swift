import Crypto
import Foundation
import Synchronization
import VarselCore

/// The keys that encrypt personal details at rest, kept in a file outside the database.
///
/// The file holds one key per line, `<id> <32 bytes in base64>`, and comment lines starting with `#`. The first key
/// encrypts new values; the others still open what they encrypted, until `varsel keys rotate` has re-encrypted it
/// under the first and `varsel keys retire` has removed them. A running server reads the file again when it changes,
/// so a rotation needs no restart.
///
/// A sealed value is `U+0001`, the key's id, `:`, then the base64 of AES-GCM's nonce, ciphertext and tag, with the
/// field's name (`contact.name`) as associated data, so a value copied into another column does not open. Plain text
/// never starts with U+0001: every text field refuses control characters.
public final class DataKeyring: Sendable {
    /// Why a key file could not be used, in one sentence that names the file but never a key.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public let description: String
        public init(_ description: String) { self.description = description }
    }

    struct Keys {
        /// Key ids, the one that encrypts first.
        var order: [String]
        var keys: [String: SymmetricKey]
        /// The file as it was when read (see ``DataKeyring/fingerprint(_:)``).
        var fingerprint: String?
        /// When the file's modification date was last looked at.
        var checked: ContinuousClock.Instant
    }

    /// The key file, or nil for a keyring made in memory (tests).
    public let path: String?
    private let state: Mutex<Keys>
    /// How often encrypting looks whether the file changed: a rotation reaches a running server within this time.
    static let recheckInterval: Duration = .seconds(1)
    /// How long after the file changed every running server encrypts under its first key: retiring a key waits for it.
    public static let settleTime: TimeInterval = 5
    static let marker: Character = "\u{1}"

    /// A keyring of `keys` in memory, the first encrypting.
    public init(keys: [(id: String, key: SymmetricKey)]) {
        precondition(!keys.isEmpty, "a keyring holds at least one key")
        path = nil
        state = Mutex(
            Keys(
                order: keys.map(\.id), keys: Dictionary(keys.map { ($0.id, $0.key) }, uniquingKeysWith: { first, _ in first }),
                fingerprint: nil, checked: .now))
    }

    private init(path: String, keys: Keys) {
        self.path = path
        state = Mutex(keys)
    }

    /// The id of the key that encrypts new values.
    public var currentID: String { state.withLock { $0.order[0] } }

    /// The ids of every key held, the encrypting one first.
    public var ids: [String] { state.withLock { $0.order } }

    // MARK: Files

    /// Reads the key file at `path`.
    public static func load(path: String) throws -> DataKeyring {
        DataKeyring(path: path, keys: try read(path))
    }

    /// Makes a new key file at `path` with one new key, readable by its owner only; refuses to replace a file.
    @discardableResult
    public static func create(path: String) throws -> DataKeyring {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw Failure("The data key file \(path) already exists; Varsel never replaces a key file.")
        }
        try write([(newID(), SymmetricKey(size: .bits256))], to: path)
        return try load(path: path)
    }

    /// Puts a new key first in the file at `path`, keeping the others so that what they encrypted still opens, and
    /// returns the keyring as the file now is.
    public static func rotate(path: String) throws -> DataKeyring {
        let existing = try read(path)
        var ids = Set(existing.order)
        var id = newID()
        while ids.contains(id) { id = newID() }
        ids.insert(id)
        try write([(id, SymmetricKey(size: .bits256))] + existing.order.map { ($0, existing.keys[$0]!) }, to: path)
        return try load(path: path)
    }

    /// Removes from the file at `path` every key but the encrypting one and those in `inUse`; returns the ids removed.
    public static func retire(path: String, keeping inUse: Set<String>) throws -> [String] {
        let existing = try read(path)
        let kept = existing.order.enumerated().filter { $0.offset == 0 || inUse.contains($0.element) }.map(\.element)
        let removed = existing.order.filter { !kept.contains($0) }
        if !removed.isEmpty { try write(kept.map { ($0, existing.keys[$0]!) }, to: path) }
        return removed
    }

    /// How long ago the file at `path` was last written, or nil when it cannot be read.
    public static func age(path: String) -> TimeInterval? {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date).map { Date().timeIntervalSince($0) }
    }

    /// Reads the file again if it changed since it was read, so a rotation reaches a running server.
    public func reloadIfChanged() {
        guard let path else { return }
        let fingerprint = Self.fingerprint(path)
        let changed = state.withLock { keys in
            keys.checked = .now
            return fingerprint != keys.fingerprint
        }
        guard changed, let fresh = try? Self.read(path) else { return }
        state.withLock { $0 = fresh }
    }

    private static func read(_ path: String) throws -> Keys {
        let fingerprint = fingerprint(path)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Failure(
                FileManager.default.fileExists(atPath: path)
                    ? "The data key file \(path) cannot be read by this user."
                    : "The data key file \(path) does not exist; make one with `varsel keys create --data-key-file \(path)`.")
        }
        var order: [String] = []
        var keys: [String: SymmetricKey] = [:]
        for (number, line) in String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.isEmpty || text.hasPrefix("#") { continue }
            let parts = text.split(separator: " ", omittingEmptySubsequences: true)
            guard parts.count == 2, isID(parts[0]), let bytes = Data(base64Encoded: String(parts[1])), bytes.count == 32 else {
                throw Failure("Line \(number + 1) of the data key file \(path) is not a key id followed by 32 bytes in base64.")
            }
            let id = String(parts[0])
            guard keys[id] == nil else { throw Failure("The data key file \(path) names the key \(id) twice.") }
            order.append(id)
            keys[id] = SymmetricKey(data: bytes)
        }
        guard !order.isEmpty else { throw Failure("The data key file \(path) holds no key.") }
        return Keys(order: order, keys: keys, fingerprint: fingerprint, checked: .now)
    }

    /// Writes `keys` to `path` at once (a new file renamed over the old), readable by the owner only.
    private static func write(_ keys: [(String, SymmetricKey)], to path: String) throws {
        var text = """
            # Varsel's data keys: they encrypt the personal details in the database. Keep this file away from the database
            # and its backups, and back it up separately: without it the details cannot be read. The first key encrypts
            # new values; keep the others until `varsel keys retire` finds nothing encrypted under them.

            """
        for (id, key) in keys {
            text += id + " " + key.withUnsafeBytes { Data($0).base64EncodedString() } + "\n"
        }
        let temporary = path + ".new"
        _ = FileManager.default.createFile(atPath: temporary, contents: nil, attributes: [.posixPermissions: 0o600])
        guard let handle = FileHandle(forWritingAtPath: temporary) else {
            throw Failure("The data key file \(path) cannot be written: its directory does not exist or is not writable.")
        }
        do {
            try handle.write(contentsOf: Data(text.utf8))
            try handle.synchronize()
            try handle.close()
            if rename(temporary, path) != 0 { throw Failure("The data key file \(path) cannot be replaced.") }
        } catch {
            // A key that did not become the file is not left beside it.
            unlink(temporary)
            if let failure = error as? Failure { throw failure }
            throw Failure("The data key file \(path) cannot be written.")
        }
    }

    /// The file's inode, size and modification time: every write of the file is a new file renamed over the old
    /// one, so its inode changes even within the clock's resolution.
    private static func fingerprint(_ path: String) -> String? {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else { return nil }
        return
            "\(attributes[.systemFileNumber] ?? "") \(attributes[.size] ?? "") \((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
    }

    private static func newID() -> String {
        (0..<4).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    private static func isID(_ text: Substring) -> Bool {
        text.count == 8 && text.allSatisfy { $0.isHexDigit && !$0.isUppercase }
    }

    // MARK: Sealing

    /// `text` encrypted under the current key for `field`; the empty text stays empty (it names no one).
    public func seal(_ text: String, field: SealedField) -> String {
        if text.isEmpty { return text }
        let (id, key) = encryptingKey()
        // AES-GCM with a random 96-bit nonce cannot fail for a 256-bit key.
        let box = try! AES.GCM.seal(Data(text.utf8), using: key, authenticating: Data(field.rawValue.utf8))
        return String(Self.marker) + id + ":" + box.combined!.base64EncodedString()
    }

    /// The text `stored` holds for `field`: opened if it is sealed, as it is if it was stored before encryption began.
    public func open(_ stored: String, field: SealedField) throws -> String {
        guard let (id, sealed) = Self.parts(stored) else { return stored }
        guard let key = key(id) else { throw StoreError.dataKeyMissing(keyID: id) }
        guard let bytes = Data(base64Encoded: String(sealed)),
            let box = try? AES.GCM.SealedBox(combined: bytes),
            let plain = try? AES.GCM.open(box, using: key, authenticating: Data(field.rawValue.utf8))
        else {
            throw StoreError.unknownStoredValue(column: field.rawValue)
        }
        return String(decoding: plain, as: UTF8.self)
    }

    /// The id of the key that sealed `stored`, or nil for plain text.
    public static func keyID(of stored: String) -> String? { parts(stored)?.id }

    /// The prefix every value sealed under key `id` starts with.
    public static func prefix(keyID id: String) -> String { String(marker) + id + ":" }

    private static func parts(_ stored: String) -> (id: String, sealed: Substring)? {
        // Every read of a notification passes here: one byte decides, before any Character is formed. A value sealed
        // under a person's key (``PersonKeyring``) is not the data key's.
        guard stored.utf8.first == 0x01, !PersonKeyring.isPersonSealed(stored) else { return nil }
        let rest = stored.dropFirst()
        guard let colon = rest.firstIndex(of: ":") else { return nil }
        return (String(rest[..<colon]), rest[rest.index(after: colon)...])
    }

    private func encryptingKey() -> (String, SymmetricKey) {
        let due = state.withLock { ContinuousClock.now - $0.checked >= Self.recheckInterval }
        if due { reloadIfChanged() }
        return state.withLock { ($0.order[0], $0.keys[$0.order[0]]!) }
    }

    private func key(_ id: String) -> SymmetricKey? {
        if let key = state.withLock({ $0.keys[id] }) { return key }
        // Sealed by another instance after a rotation this one has not read yet.
        reloadIfChanged()
        return state.withLock { $0.keys[id] }
    }
}

/// The stored fields that hold personal details, each sealed with its own name as associated data.
public enum SealedField: String, Sendable, CaseIterable {
    case contactName = "contact.name"
    case contactPhone = "contact.phone"
    case contactAddress = "contact.address"
    case contactNotes = "contact.notes"
    /// A notification's body, when it has personal details.
    case notificationBody = "notification.body"
    /// A notification's personal details (JSON), when there are any.
    case notificationDetails = "notification.personal_details"
    /// The event log's copy of a notification that has personal details.
    case eventNotification = "event.notification"
    case visitNote = "assignment.visit_note"
    /// A person's own mobile number or email address, for text messages and emails.
    case channelAddress = "contact_channel.address"
    case reflection = "scenario_recipient.reflection"
    /// The key an integration's webhooks are signed with.
    case webhookSecret = "webhook_endpoint.secret"
    /// A known value that tells, at start, whether the key file holds the database's key.
    case keyCheck = "data_key_check.sealed"
    /// A person's key, wrapped by a data key in the key store (``PersonKeyring``).
    case personKey = "person_key.wrapped"
}

/// A store's sealing: under a keyring, or none (values stored as they are); with a ``PersonKeyring``, the details of
/// the people mentors visit each under their own key.
public struct FieldSealer: Sendable {
    public let keyring: DataKeyring?
    public let people: PersonKeyring?

    public init(_ keyring: DataKeyring?, people: PersonKeyring? = nil) {
        self.keyring = keyring
        self.people = keyring == nil ? nil : people
    }

    /// No encryption.
    public static let none = FieldSealer(nil)

    /// Whether a notification's text is sealed: when it has personal details, its body may name them.
    public static func sealsNotification(personalDetails: [String]) -> Bool { !personalDetails.isEmpty }

    public func seal(_ text: String, field: SealedField) -> String {
        keyring?.seal(text, field: field) ?? text
    }

    /// `text` sealed under the person's key `person` when there is one and people have keys, else as
    /// ``seal(_:field:)`` does.
    public func seal(_ text: String, field: SealedField, person: PersonKeyID?) throws -> String {
        guard let person, let people else { return seal(text, field: field) }
        return try people.seal(text, field: field, key: person)
    }

    /// The contact whose key seals a notification's body and personal details (the one an assignment's notification
    /// links to), when people have keys and the notification has details; else nil (the data key seals them).
    public func personSealing(deepLink: DeepLinkTarget, details: [String]) -> ContactID? {
        guard people != nil, FieldSealer.sealsNotification(personalDetails: details), case let .contact(contactID, _) = deepLink else {
            return nil
        }
        return contactID
    }

    /// A new person's key when people have keys (see ``PersonKeyring/newKey()``), else nil.
    public func newPersonKey() throws -> PersonKeyID? {
        try people?.newKey()
    }

    /// The stored text opened; a sealed value with no keyring is ``StoreError/dataKeyMissing(keyID:)``.
    public func open(_ stored: String, field: SealedField) throws -> String {
        if PersonKeyring.isPersonSealed(stored) {
            guard let people else { throw StoreError.personKeyMissing(keyID: PersonKeyring.keyID(of: stored)?.rawValue ?? "unknown") }
            return try people.open(stored, field: field)
        }
        if let keyring { return try keyring.open(stored, field: field) }
        if let id = DataKeyring.keyID(of: stored) { throw StoreError.dataKeyMissing(keyID: id) }
        return stored
    }

    public func openIfPresent(_ stored: String?, field: SealedField) throws -> String? {
        try stored.map { try open($0, field: field) }
    }

    /// The known text each encrypted database keeps sealed, to tell at start whether the key file holds its key.
    static let checkText = "Varsel data key check"

    /// Checks a store's sealed check value (`existing`, nil when it has none) against these keys at start, and
    /// returns the value to store when the database has none and is to be encrypted from now on. Throws
    /// ``StoreError/dataKeyRequired`` for an encrypted database opened without keys, and
    /// ``StoreError/dataKeyMissing(keyID:)`` when the keys cannot open it.
    public func startingCheck(existing: String?) throws -> String? {
        guard let existing else { return keyring.map { _ in seal(Self.checkText, field: .keyCheck) } }
        guard keyring != nil else { throw StoreError.dataKeyRequired }
        guard (try? open(existing, field: .keyCheck)) == Self.checkText else {
            throw StoreError.dataKeyMissing(keyID: DataKeyring.keyID(of: existing) ?? "unknown")
        }
        return nil
    }
}

/// A column that holds sealed personal details, as every store names it, for re-encryption and key counts.
public struct SealedColumn: Sendable {
    public let table: String
    public let column: String
    /// The columns that name one row.
    public let keys: [String]
    public let field: SealedField
    /// Which rows, when still plain (stored before encryption began), hold a value to seal (SQL, the same in every store).
    public let plainCondition: String

    /// Every sealed column.
    public static let all: [SealedColumn] = [
        SealedColumn(table: "contact", column: "name", keys: ["id"], field: .contactName, plainCondition: "1 = 1"),
        SealedColumn(table: "contact", column: "phone", keys: ["id"], field: .contactPhone, plainCondition: "1 = 1"),
        SealedColumn(table: "contact", column: "address", keys: ["id"], field: .contactAddress, plainCondition: "1 = 1"),
        SealedColumn(table: "contact", column: "notes", keys: ["id"], field: .contactNotes, plainCondition: "1 = 1"),
        SealedColumn(table: "notification", column: "body", keys: ["id"], field: .notificationBody, plainCondition: "personal_details <> '[]'"),
        SealedColumn(
            table: "notification", column: "personal_details", keys: ["id"], field: .notificationDetails,
            plainCondition: "personal_details <> '[]'"),
        SealedColumn(
            table: "fanout_variant", column: "body", keys: ["fanout_id", "variant"], field: .notificationBody,
            plainCondition: "personal_details <> '[]'"),
        SealedColumn(
            table: "fanout_variant", column: "personal_details", keys: ["fanout_id", "variant"], field: .notificationDetails,
            plainCondition: "personal_details <> '[]'"),
        SealedColumn(
            table: "event", column: "notification", keys: ["id"], field: .eventNotification,
            plainCondition: "notification_id IN (SELECT id FROM notification WHERE personal_details <> '[]')"),
        SealedColumn(table: "assignment", column: "visit_note", keys: ["id"], field: .visitNote, plainCondition: "1 = 1"),
        SealedColumn(
            table: "scenario_recipient", column: "reflection", keys: ["scenario_id", "mentor_id"], field: .reflection,
            plainCondition: "1 = 1"),
        SealedColumn(table: "contact_channel", column: "address", keys: ["user_id", "channel"], field: .channelAddress, plainCondition: "1 = 1"),
        SealedColumn(table: "webhook_endpoint", column: "secret", keys: ["id"], field: .webhookSecret, plainCondition: "1 = 1"),
        SealedColumn(table: "data_key_check", column: "sealed", keys: ["id"], field: .keyCheck, plainCondition: "1 = 0"),
    ]

    /// The length of the prefix that names a sealed value's key: the marker, eight characters of id, a colon.
    public static let prefixLength = 10
    /// The marker a sealed value starts with, as text for a query's argument.
    public static let marker = "\u{1}"
    /// What a value sealed under a person's key (``PersonKeyring``) starts with: data key rotation leaves it alone.
    public static let personMarker = "\u{1}p"
}

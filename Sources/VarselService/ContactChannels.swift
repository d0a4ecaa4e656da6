import Crypto
import Foundation
import VarselCore
import VarselMessaging
import VarselStore

/// Why a text message or an email did not go: worth trying later, or not.
public enum OutsideSendError: Error, Sendable, Equatable {
    case transient
    case permanent
}

/// What stops a code from being sent or accepted; the pages and the API say each in their reader's words.
public enum ChannelVerificationError: Error, Sendable, Equatable {
    /// This Varsel sends no messages of that kind.
    case unavailable
    /// A code went there less than ``ContactChannels/resendAfter`` ago.
    case tooSoon(seconds: Int)
    /// The gateway or the mail server did not take the code now; trying later may help.
    case notSent
    /// The gateway or the mail server refused the number or the address itself.
    case refusedAddress
    /// No code waits (never asked for, or used).
    case noCode
    case expired
    /// Too many wrong codes: the code no longer works.
    case tooManyWrongCodes
    case wrongCode(triesLeft: Int)
}

/// A person's mobile number and email address: saving one sends a six-digit code there, and typing it back verifies
/// it. Only verified channels carry notifications.
///
/// A code works for ten minutes and once; five wrong codes end it; a new one can be asked for once a minute. Only
/// its hash is kept, and it appears in no log, URL or error.
public struct ContactChannels: Sendable {
    let repository: any ContactChannelStore & NotificationStore & UserStore
    let messaging: OutsideMessaging
    let now: @Sendable () -> Date
    /// Makes a new six-digit code; tests pass a known one.
    let makeCode: @Sendable () -> String

    public static let codeLifetime: TimeInterval = 600
    public static let resendAfter: TimeInterval = 60
    public static let maximumWrongCodes = 5

    public init(
        repository: any ContactChannelStore & NotificationStore & UserStore, messaging: OutsideMessaging, now: @escaping @Sendable () -> Date,
        makeCode: @escaping @Sendable () -> String = { String(format: "%06d", Int.random(in: 0...999_999)) }
    ) {
        self.repository = repository
        self.messaging = messaging
        self.now = now
        self.makeCode = makeCode
    }

    /// Whether this Varsel can send through `channel`.
    public func offers(_ channel: OutsideChannel) -> Bool { messaging.offers(channel) }

    /// `userID`'s channels as the screens show them.
    public func channels(of userID: UserID) async throws -> [OutsideChannel: ContactChannelState] {
        Dictionary(try await repository.contactChannels(of: userID).map { ($0.channel, $0.state) }, uniquingKeysWith: { first, _ in first })
    }

    /// Saves `address` (as typed) for `person`'s `channel` and sends a code there. Throws ``InvalidInput`` naming
    /// `address` when it is not a mobile number or an email address, and ``ChannelVerificationError`` when no code
    /// can go now. Returns the address as stored.
    @discardableResult
    public func start(_ channel: OutsideChannel, address raw: String, for person: User) async throws -> String {
        let address = try Self.normalized(raw, channel: channel)
        guard messaging.offers(channel) else { throw ChannelVerificationError.unavailable }
        let current = now()
        if let existing = try await repository.contactChannels(of: person.id).first(where: { $0.channel == channel }),
            let sentAt = existing.codeSentAt, current.timeIntervalSince(sentAt) < Self.resendAfter
        {
            throw ChannelVerificationError.tooSoon(seconds: Int((Self.resendAfter - current.timeIntervalSince(sentAt)).rounded(.up)))
        }
        let code = makeCode()
        let strings = Strings(person.language)
        let minutes = Int(Self.codeLifetime / 60)
        let email = OutsideMessageText.codeEmail(code, minutes: minutes, strings: strings)
        do {
            try await messaging.send(
                channel, to: address, name: person.displayName, subject: strings.codeEmailSubject,
                text: channel == .email ? email.plainText : OutsideMessageText.code(code, minutes: minutes, strings: strings),
                html: email.html, language: person.language)
        } catch OutsideSendError.permanent {
            throw ChannelVerificationError.refusedAddress
        } catch {
            throw ChannelVerificationError.notSent
        }
        try await repository.saveContactChannel(
            userID: person.id, channel: channel, address: address, codeHash: Self.hash(code, userID: person.id, channel: channel),
            expiresAt: current.addingTimeInterval(Self.codeLifetime), at: current)
        return address
    }

    /// Checks the code `person` typed for `channel`; verifies the channel when it is the one waiting. Throws
    /// ``InvalidInput`` naming `code` when it is not six digits, and ``ChannelVerificationError`` when it does not verify.
    public func verify(_ channel: OutsideChannel, code raw: String, for person: User) async throws {
        let code = raw.filter { !$0.isWhitespace && $0 != "-" }
        guard code.count == 6, code.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw InvalidInput([.init(field: "code", rule: .other("six digits"))])
        }
        guard let stored = try await repository.contactChannels(of: person.id).first(where: { $0.channel == channel }),
            stored.codeHash != nil, let expiresAt = stored.codeExpiresAt
        else { throw ChannelVerificationError.noCode }
        guard stored.wrongCodes < Self.maximumWrongCodes else { throw ChannelVerificationError.tooManyWrongCodes }
        guard now() < expiresAt else { throw ChannelVerificationError.expired }
        let hash = Self.hash(code, userID: person.id, channel: channel)
        if try await repository.markContactChannelVerified(userID: person.id, channel: channel, codeHash: hash, at: now()) { return }
        let wrong = try await repository.recordWrongCode(userID: person.id, channel: channel)
        guard wrong < Self.maximumWrongCodes else { throw ChannelVerificationError.tooManyWrongCodes }
        throw ChannelVerificationError.wrongCode(triesLeft: Self.maximumWrongCodes - wrong)
    }

    /// Until when `notificationID`'s push, text message and email wait for the end of its person's quiet hours; nil
    /// when they are not held now (urgent, read, or outside the quiet hours).
    public func heldUntil(notificationID: NotificationID) async throws -> Date? {
        guard let item = try await repository.notification(id: notificationID), item.readAt == nil else { return nil }
        return try await repository.preferences(for: item.recipientID).heldUntil(urgency: item.urgency, at: now())
    }

    /// Removes `person`'s `channel` and the messages queued for it; returns whether there was one.
    @discardableResult
    public func remove(_ channel: OutsideChannel, for person: User) async throws -> Bool {
        try await repository.deleteContactChannel(userID: person.id, channel: channel)
    }

    /// The code's hash, bound to its person and channel so one code's hash says nothing of another's.
    static func hash(_ code: String, userID: UserID, channel: OutsideChannel) -> String {
        SHA256.hash(data: Data("\(userID.rawValue):\(channel.rawValue):\(code)".utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// `address` as stored: a mobile number in E.164 (Norwegian numbers written the usual ways become `+47…`), an
    /// email address trimmed with its domain in lower case. Throws ``InvalidInput`` naming `address`.
    public static func normalized(_ raw: String, channel: OutsideChannel) throws -> String {
        let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        switch channel {
        case .textMessage:
            guard let number = e164(trimmed) else { throw InvalidInput([.init(field: "address", rule: .other("a mobile number"))]) }
            return number
        case .email:
            guard let address = email(trimmed) else { throw InvalidInput([.init(field: "address", rule: .other("an email address"))]) }
            return address
        }
    }

    /// A phone number in E.164, or nil: `+47 912 34 567`, `912 34 567`, `0047 91234567` and `(+47) 91-23-45-67` are
    /// all `+4791234567`; a number with another country code must start with `+` or `00`. Norwegian mobile numbers
    /// start with 4 or 9.
    static func e164(_ text: String) -> String? {
        guard text.count <= 32, text.allSatisfy({ $0.isASCII && ($0.isNumber || " -().+".contains($0)) }) else { return nil }
        var digits = text.filter(\.isNumber)
        let international = text.hasPrefix("+") || text.hasPrefix("(+") || digits.hasPrefix("00")
        if text.filter({ $0 == "+" }).count > 1 { return nil }
        if digits.hasPrefix("00") { digits.removeFirst(2) }
        if !international {
            guard digits.count == 8, let first = digits.first, first == "4" || first == "9" else { return nil }
            return "+47" + digits
        }
        if digits.hasPrefix("47") {
            let national = digits.dropFirst(2)
            guard national.count == 8, let first = national.first, first == "4" || first == "9" else { return nil }
        }
        guard (8...15).contains(digits.count), digits.first != "0" else { return nil }
        return "+" + digits
    }

    /// An email address with one `@`, a local part and a domain with a dot, in ASCII (mail servers without SMTPUTF8
    /// take no other), no spaces or controls, at most 254 characters; the domain lower-cased.
    static func email(_ text: String) -> String? {
        guard text.unicodeScalars.count <= 254, text.allSatisfy(\.isASCII),
            !text.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 32 || $0 == 127 } == true }),
            !text.contains(where: { "<>()[],;:\\\"".contains($0) })
        else { return nil }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return nil }
        let domain = parts[1].lowercased()
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }) else { return nil }
        return "\(parts[0])@\(domain)"
    }
}

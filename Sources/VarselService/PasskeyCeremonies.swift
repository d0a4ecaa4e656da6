import Crypto
import Foundation
import VarselCore
import VarselPasskeys
import VarselStore

/// Adding passkeys and signing in with them: the one place that issues challenges, checks a ceremony, keeps a
/// passkey's counter and decides who may remove one.
///
/// A challenge is 32 random bytes, kept only as its hash, used once, bound to what asked for it (the session adding a
/// passkey, or the sign-in attempt's cookie) and valid for five minutes. A failed sign-in counts against the sign-in
/// throttle like a wrong password.
public struct PasskeyCeremonies: Sendable {
    /// Why a passkey ceremony or change was refused. Ceremony failures carry their reason for the log, never for
    /// the client, which learns only that the passkey was not accepted.
    public enum Refusal: Error, Sendable, Equatable {
        /// Passkeys need `--public-url`: its host is the relying party's id.
        case unavailable
        /// The ceremony did not verify (see ``PasskeyError``), or its challenge was unknown, used, expired or bound
        /// to someone else.
        case notAccepted(reason: String)
        /// No passkey of this user has that id.
        case unknownPasskey
        /// The passkey's name is empty, too long, or holds control characters.
        case invalidName
        /// The user has no password, and this is their last passkey: removing it would lock them out.
        case lastWayIn
        case tooManyAttempts(retryAfterSeconds: Int)
        case deactivated
    }

    /// What the browser's `navigator.credentials.create()` needs, in WebAuthn's JSON form (bytes as base64url).
    public struct RegistrationOptions: Codable, Sendable, Equatable {
        public struct Entity: Codable, Sendable, Equatable {
            public var id: String?
            public var name: String
            public var displayName: String?
        }
        public struct Parameter: Codable, Sendable, Equatable {
            public var type = "public-key"
            public var alg: Int64
        }
        public struct Descriptor: Codable, Sendable, Equatable {
            public var type = "public-key"
            public var id: String
        }
        public struct Selection: Codable, Sendable, Equatable {
            public var residentKey = "required"
            public var requireResidentKey = true
            public var userVerification = "required"
        }
        public var rp: Entity
        public var user: Entity
        public var challenge: String
        public var pubKeyCredParams: [Parameter]
        public var timeout: Int
        public var excludeCredentials: [Descriptor]
        public var authenticatorSelection = Selection()
        public var attestation = "none"
    }

    /// What `navigator.credentials.get()` needs: no credentials listed, so the device offers its passkeys for Varsel.
    public struct SignInOptions: Codable, Sendable, Equatable {
        public var challenge: String
        public var rpId: String
        public var timeout: Int
        public var userVerification = "required"
        public var allowCredentials: [RegistrationOptions.Descriptor] = []
    }

    /// A passkey's name: at most this many characters.
    public static let maximumNameLength = Limits.maxPasskeyNameLength
    static let challengeLifetime: TimeInterval = 300

    let repository: any PasskeyStore & UserStore
    let sessions: Sessions
    let verifier: WebAuthnVerifier?
    let now: @Sendable () -> Date

    /// Passkeys for the relying party of `publicURL`; none without one.
    public init(repository: any PasskeyStore & UserStore, sessions: Sessions, publicURL: URL?, now: @escaping @Sendable () -> Date) {
        self.repository = repository
        self.sessions = sessions
        verifier = publicURL.flatMap(RelyingParty.init(publicURL:)).map(WebAuthnVerifier.init(relyingParty:))
        self.now = now
    }

    /// Whether passkeys can be used here (a public URL is set).
    public var isAvailable: Bool { verifier != nil }

    // MARK: Adding

    /// Starts adding a passkey for `user` in `session`.
    public func registrationOptions(for user: User, session: Session) async throws -> RegistrationOptions {
        try await registrationOptions(for: user, boundTo: session.tokenHash)
    }

    /// Finishes adding a passkey named `name`: the ceremony must answer this session's challenge.
    public func register(user: User, session: Session, name: String, clientDataJSON: [UInt8], attestationObject: [UInt8]) async throws -> Passkey {
        let passkey = try await verifiedPasskey(
            for: user, boundTo: session.tokenHash, name: name, clientDataJSON: clientDataJSON,
            attestationObject: attestationObject)
        return try await registered { try await repository.addPasskey(passkey, at: now()) }
    }

    // MARK: Adding one through a set-password link

    /// Starts adding a passkey, instead of a password, for the holder of the one-time link `code`; the challenge is
    /// bound to the link. ``UserAdministration/Refusal/linkNotValid`` when the link cannot be used.
    public func registrationOptions(forLink code: String) async throws -> RegistrationOptions {
        _ = try available()
        let (user, linkHash) = try await linkHolder(code)
        return try await registrationOptions(for: user, boundTo: linkHash)
    }

    /// Finishes adding a passkey through the link `code`: the link is used up (the password stays as it was, none for a
    /// new person), the account's other sessions end, and a session starts, as after choosing a password.
    public func register(withLink code: String, name: String, clientDataJSON: [UInt8], attestationObject: [UInt8]) async throws -> Sessions.Started {
        // Refused for the server or the name before the link is looked up.
        _ = try available()
        _ = try Self.validName(name)
        let (user, linkHash) = try await linkHolder(code)
        let passkey = try await verifiedPasskey(
            for: user, boundTo: linkHash, name: name, clientDataJSON: clientDataJSON,
            attestationObject: attestationObject)
        let used = try await registered { try await repository.usePasswordLink(tokenHash: linkHash, addingPasskey: passkey, at: now()) }
        guard let (holder, _) = used else { throw UserAdministration.Refusal.linkNotValid }
        sessions.broker.endStreams(ofUser: holder.id, reason: .signedOut)
        return try await sessions.start(for: holder)
    }

    /// The options for adding a passkey for `user`, the challenge bound to `bindingHash` (a session's or a link's).
    private func registrationOptions(for user: User, boundTo bindingHash: String) async throws -> RegistrationOptions {
        let verifier = try available()
        let challenge = try await issueChallenge(.registration, userID: user.id, bindingHash: bindingHash)
        let existing = try await repository.passkeys(userID: user.id)
        return RegistrationOptions(
            rp: .init(id: verifier.relyingParty.id, name: verifier.relyingParty.name, displayName: nil),
            user: .init(id: Base64URL.encode(Self.userHandle(user.id)), name: user.username, displayName: user.displayName),
            challenge: challenge, pubKeyCredParams: COSEKey.algorithms.map { .init(alg: $0) },
            timeout: Int(Self.challengeLifetime * 1000), excludeCredentials: existing.map { .init(id: $0.credentialID) })
    }

    /// The passkey a registration ceremony made for `user`, once its name is valid and it answered the challenge
    /// bound to `bindingHash`.
    private func verifiedPasskey(
        for user: User, boundTo bindingHash: String, name: String, clientDataJSON: [UInt8],
        attestationObject: [UInt8]
    ) async throws -> NewPasskey {
        let verifier = try available()
        let name = try Self.validName(name)
        let challenge = try await takeChallenge(in: clientDataJSON, purpose: .registration, bindingHash: bindingHash, userID: user.id)
        let credential: RegisteredCredential
        do {
            credential = try verifier.register(clientDataJSON: clientDataJSON, attestationObject: attestationObject, challenge: challenge)
        } catch {
            throw Refusal.notAccepted(reason: Self.reason(error))
        }
        return NewPasskey(
            userID: user.id, credentialID: Base64URL.encode(credential.id), publicKey: Data(credential.publicKey),
            signCount: credential.signCount, name: name)
    }

    /// Saves a verified passkey through `save`; a credential registered already is refused as not accepted.
    private func registered<T>(_ save: () async throws -> T) async throws -> T {
        do {
            return try await save()
        } catch StoreError.conflict {
            throw Refusal.notAccepted(reason: "the credential is registered already")
        }
    }

    /// The holder of the one-time link `code`, and the link's hash (what a challenge is bound to).
    private func linkHolder(_ code: String) async throws -> (User, String) {
        guard let hash = SetPasswordCode.tokenHash(typed: code) else { throw UserAdministration.Refusal.linkNotValid }
        guard let user = try await repository.passwordLinkUser(tokenHash: hash, at: now()) else { throw UserAdministration.Refusal.linkNotValid }
        return (user, hash)
    }

    // MARK: Signing in

    /// Starts a sign-in for the attempt whose cookie is `attempt`.
    public func signInOptions(attempt: String) async throws -> SignInOptions {
        let verifier = try available()
        let challenge = try await issueChallenge(.signIn, userID: nil, bindingHash: Tokens.hash(attempt))
        return SignInOptions(challenge: challenge, rpId: verifier.relyingParty.id, timeout: Int(Self.challengeLifetime * 1000))
    }

    /// Finishes a sign-in: the assertion must answer this attempt's challenge, by a registered passkey whose
    /// counter goes forward; then a session starts, as after a password. `client` is the address, for the throttle.
    public func signIn(
        attempt: String, credentialID: String, clientDataJSON: [UInt8], authenticatorData: [UInt8], signature: [UInt8],
        userHandle: [UInt8]?, client: String
    ) async throws -> Sessions.Started {
        let verifier = try available()
        let reserved: LoginThrottle.Attempt
        switch await sessions.throttle.reserve(account: "passkey:" + credentialID, client: client) {
        case let .proceed(attempt): reserved = attempt
        case let .retry(after): throw Refusal.tooManyAttempts(retryAfterSeconds: max(1, Int(after.rounded(.up))))
        }
        let user: User
        do {
            let challenge = try await takeChallenge(in: clientDataJSON, purpose: .signIn, bindingHash: Tokens.hash(attempt), userID: nil)
            guard let passkey = try await repository.passkey(credentialID: credentialID),
                let owner = try await repository.user(id: passkey.userID)
            else {
                throw Refusal.notAccepted(reason: "unknown credential")
            }
            if let userHandle, userHandle != Self.userHandle(owner.id) { throw Refusal.notAccepted(reason: "the user handle is another user's") }
            let counter: UInt32
            do {
                counter = try verifier.authenticate(
                    clientDataJSON: clientDataJSON, authenticatorData: authenticatorData, signature: signature,
                    challenge: challenge, publicKey: Array(passkey.publicKey), storedCount: passkey.signCount)
            } catch {
                throw Refusal.notAccepted(reason: Self.reason(error))
            }
            try await repository.recordPasskeyUse(id: passkey.id, signCount: counter, at: now())
            user = owner
        } catch {
            await sessions.throttle.failed(reserved)
            throw error
        }
        await sessions.throttle.succeeded(reserved)
        guard user.isActive else { throw Refusal.deactivated }
        return try await sessions.start(for: user)
    }

    // MARK: Managing

    public func passkeys(of user: User) async throws -> [Passkey] {
        try await repository.passkeys(userID: user.id)
    }

    public func rename(_ id: Int64, of user: User, to name: String) async throws -> Passkey {
        let name = try Self.validName(name)
        guard let renamed = try await repository.renamePasskey(id: id, userID: user.id, name: name) else { throw Refusal.unknownPasskey }
        return renamed
    }

    /// Removes one of `user`'s passkeys; refused when it is their last way in.
    public func remove(_ id: Int64, of user: User) async throws {
        let passkeys = try await repository.passkeys(userID: user.id)
        guard passkeys.contains(where: { $0.id == id }) else { throw Refusal.unknownPasskey }
        if user.passwordHash.isEmpty, passkeys.count == 1 { throw Refusal.lastWayIn }
        guard try await repository.removePasskey(id: id, userID: user.id, at: now()) else { throw Refusal.unknownPasskey }
    }

    // MARK: Parts

    /// The user handle authenticators keep for `userID`: its eight bytes, big-endian; no name, no address.
    static func userHandle(_ userID: UserID) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: userID.rawValue >> (8 * Int64($0))) }
    }

    private func available() throws -> WebAuthnVerifier {
        guard let verifier else { throw Refusal.unavailable }
        return verifier
    }

    private func issueChallenge(_ purpose: PasskeyChallenge.Purpose, userID: UserID?, bindingHash: String) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        try await repository.storeChallenge(
            PasskeyChallenge(
                challengeHash: Self.hash(bytes), purpose: purpose, userID: userID, bindingHash: bindingHash,
                expiresAt: now().addingTimeInterval(Self.challengeLifetime)), at: now())
        return Base64URL.encode(bytes)
    }

    /// The challenge `clientDataJSON` answers, taken (so never again usable) and checked against who may answer it.
    private func takeChallenge(in clientDataJSON: [UInt8], purpose: PasskeyChallenge.Purpose, bindingHash: String, userID: UserID?) async throws
        -> [UInt8]
    {
        guard let object = try? JSONSerialization.jsonObject(with: Data(clientDataJSON)) as? [String: Any],
            let text = object["challenge"] as? String, let bytes = Base64URL.decode(text)
        else {
            throw Refusal.notAccepted(reason: "the client data names no challenge")
        }
        guard let challenge = try await repository.takeChallenge(challengeHash: Self.hash(bytes), at: now()) else {
            throw Refusal.notAccepted(reason: "the challenge is unknown, used or expired")
        }
        guard challenge.purpose == purpose, challenge.bindingHash == bindingHash, challenge.userID == userID else {
            throw Refusal.notAccepted(reason: "the challenge was issued to another ceremony")
        }
        return bytes
    }

    private static func hash(_ bytes: [UInt8]) -> String {
        SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
    }

    private static func validName(_ name: String) throws -> String {
        guard Validation.text(name, field: "name", max: maximumNameLength).isEmpty else { throw Refusal.invalidName }
        return name.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case let error as PasskeyError: "\(error)"
        case let error as CBORError: error.description
        default: "\(type(of: error))"
        }
    }
}

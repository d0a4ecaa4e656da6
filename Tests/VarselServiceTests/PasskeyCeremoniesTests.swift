import Foundation
import Synchronization
import Testing
import VarselCore
import VarselPasskeys
import VarselPasskeysTesting
import VarselSQLite
import VarselStore

@testable import VarselService

/// Adding a passkey and signing in with it: challenges used once, bound and short-lived; failures throttled.
@Suite("Passkey ceremonies")
struct PasskeyCeremoniesTests {
    final class Clock: Sendable {
        private let current = Mutex(DemoData.now)
        var now: Date { current.withLock { $0 } }
        func advance(seconds: Double) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    }

    struct World {
        let repository = try! SQLiteRepository.inMemory()
        let clock = Clock()
        let ceremonies: PasskeyCeremonies
        let kari: User
        let session: Session

        init(publicURL: String? = "http://localhost:8080", password: String = "hash") async throws {
            let clock = clock
            let sessions = Sessions(
                repository: repository, passwords: PasswordHasher(cost: 4), throttle: LoginThrottle(now: { clock.now }),
                broker: EventBroker(bufferLimit: 8, metrics: ServiceMetrics()), lifetime: 3600, now: { clock.now })
            ceremonies = PasskeyCeremonies(
                repository: repository, sessions: sessions, publicURL: publicURL.flatMap(URL.init(string:)),
                now: { clock.now })
            kari = try await repository.createUser(
                NewUser(
                    username: "kari", displayName: "Kari", role: .mentor, passwordHash: password,
                    language: .english), at: clock.now)
            session = try await sessions.start(for: kari).session
        }

        /// Adds `authenticator`'s passkey for Kari, through the whole ceremony.
        func add(_ authenticator: TestAuthenticator, name: String = "iPhone") async throws -> Passkey {
            let options = try await ceremonies.registrationOptions(for: kari, session: session)
            let challenge = try #require(Base64URL.decode(options.challenge))
            let (clientData, object) = authenticator.registration(challenge: challenge)
            return try await ceremonies.register(user: kari, session: session, name: name, clientDataJSON: clientData, attestationObject: object)
        }

        /// Signs in with `authenticator` for the attempt `attempt`, answering the challenge issued to `issuedTo`.
        func signIn(
            _ authenticator: inout TestAuthenticator, attempt: String = "attempt-1", issuedTo: String? = nil,
            challenge given: [UInt8]? = nil
        ) async throws -> Sessions.Started {
            let challenge: [UInt8]
            if let given {
                challenge = given
            } else {
                challenge = try #require(Base64URL.decode(try await ceremonies.signInOptions(attempt: issuedTo ?? attempt).challenge))
            }
            let (clientData, authData, signature) = authenticator.assertion(challenge: challenge)
            return try await ceremonies.signIn(
                attempt: attempt, credentialID: Base64URL.encode(authenticator.credentialID), clientDataJSON: clientData,
                authenticatorData: authData, signature: signature, userHandle: PasskeyCeremonies.userHandle(kari.id),
                client: "203.0.113.9")
        }
    }

    @Test("the options ask for a resident key, user verification, no attestation, ES256 then EdDSA, and exclude the passkeys already added")
    func options() async throws {
        let world = try await World()
        let first = try await world.ceremonies.registrationOptions(for: world.kari, session: world.session)
        #expect(first.rp == .init(id: "localhost", name: "Varsel", displayName: nil))
        #expect(first.user.name == "kari" && first.user.displayName == "Kari")
        #expect(first.authenticatorSelection == .init() && first.attestation == "none" && first.pubKeyCredParams.map(\.alg) == [-7, -8])
        #expect(first.timeout == 300_000 && first.excludeCredentials.isEmpty)
        let authenticator = TestAuthenticator()
        _ = try await world.add(authenticator)
        let second = try await world.ceremonies.registrationOptions(for: world.kari, session: world.session)
        #expect(second.excludeCredentials.map(\.id) == [Base64URL.encode(authenticator.credentialID)])
        #expect(second.challenge != first.challenge)
    }

    @Test("a passkey added in a session signs in: a session starts, the counter and the time of use are kept")
    func addThenSignIn() async throws {
        let world = try await World()
        var authenticator = TestAuthenticator()
        let passkey = try await world.add(authenticator, name: "  Kari's phone ")
        #expect(passkey.name == "Kari's phone")
        world.clock.advance(seconds: 60)
        let started = try await world.signIn(&authenticator)
        #expect(started.user.id == world.kari.id)
        let used = try #require(try await world.repository.passkey(credentialID: passkey.credentialID))
        #expect(used.signCount == 1 && used.lastUsedAt == world.clock.now)
    }

    @Test("refused: a replayed challenge, an expired one, one issued to another attempt, a registration's challenge used to sign in")
    func challengesAreUsedOnceAndBound() async throws {
        let world = try await World()
        var authenticator = TestAuthenticator()
        _ = try await world.add(authenticator)
        let challenge = try #require(Base64URL.decode(try await world.ceremonies.signInOptions(attempt: "attempt-1").challenge))
        _ = try await world.signIn(&authenticator, challenge: challenge)
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "the challenge is unknown, used or expired")) {
            try await world.signIn(&authenticator, challenge: challenge)
        }
        let late = try #require(Base64URL.decode(try await world.ceremonies.signInOptions(attempt: "attempt-1").challenge))
        world.clock.advance(seconds: 300)
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "the challenge is unknown, used or expired")) {
            try await world.signIn(&authenticator, challenge: late)
        }
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "the challenge was issued to another ceremony")) {
            try await world.signIn(&authenticator, attempt: "attempt-2", issuedTo: "attempt-1")
        }
        let registration = try #require(
            Base64URL.decode(try await world.ceremonies.registrationOptions(for: world.kari, session: world.session).challenge))
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "the challenge was issued to another ceremony")) {
            try await world.signIn(&authenticator, challenge: registration)
        }
    }

    @Test("refused: an unknown credential, and a counter that went back; failures count against the sign-in throttle")
    func unknownCredentialAndThrottle() async throws {
        let world = try await World()
        var registered = TestAuthenticator()
        _ = try await world.add(registered)
        var stranger = TestAuthenticator()
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "unknown credential")) { try await world.signIn(&stranger) }
        _ = try await world.signIn(&registered)
        registered.counter = 0
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "counterWentBack")) { try await world.signIn(&registered) }
        for _ in 0..<4 { _ = try? await world.signIn(&stranger) }
        await #expect(throws: PasskeyCeremonies.Refusal.tooManyAttempts(retryAfterSeconds: 1)) { try await world.signIn(&stranger) }
    }

    @Test("a deactivated account's passkey is refused after it verified, as its password is")
    func deactivated() async throws {
        let world = try await World()
        var authenticator = TestAuthenticator()
        _ = try await world.add(authenticator)
        _ = try await world.repository.changeAccount(userID: world.kari.id, .deactivate, log: [], at: world.clock.now)
        await #expect(throws: PasskeyCeremonies.Refusal.deactivated) { try await world.signIn(&authenticator) }
    }

    @Test("renaming checks the name; removing another's passkey or the last way in is refused")
    func manage() async throws {
        let noPassword = try await World(password: "")
        let only = try await noPassword.add(TestAuthenticator())
        await #expect(throws: PasskeyCeremonies.Refusal.lastWayIn) { try await noPassword.ceremonies.remove(only.id, of: noPassword.kari) }
        let second = try await noPassword.add(TestAuthenticator(), name: "Laptop")
        try await noPassword.ceremonies.remove(only.id, of: noPassword.kari)
        await #expect(throws: PasskeyCeremonies.Refusal.unknownPasskey) { try await noPassword.ceremonies.remove(only.id, of: noPassword.kari) }
        await #expect(throws: PasskeyCeremonies.Refusal.invalidName) {
            try await noPassword.ceremonies.rename(second.id, of: noPassword.kari, to: " ")
        }
        await #expect(throws: PasskeyCeremonies.Refusal.invalidName) {
            try await noPassword.ceremonies.rename(second.id, of: noPassword.kari, to: String(repeating: "x", count: 61))
        }
        #expect(try await noPassword.ceremonies.rename(second.id, of: noPassword.kari, to: "Work laptop").name == "Work laptop")

        let withPassword = try await World()
        let one = try await withPassword.add(TestAuthenticator())
        try await withPassword.ceremonies.remove(one.id, of: withPassword.kari)
        #expect(try await withPassword.ceremonies.passkeys(of: withPassword.kari).isEmpty)
    }

    @Test(
        "a new person adds a passkey through their set-password link instead of a password: the link is used up, a session starts, and their only passkey cannot be removed"
    )
    func passkeyThroughTheLink() async throws {
        let world = try await World()
        let code = SetPasswordCode.generate()
        let newcomer = try await world.repository.createUser(
            NewUser(username: "nina", displayName: "Nina", role: .mentor, passwordHash: "", language: .english),
            link: PasswordLink(tokenHash: SetPasswordCode.hash(code), expiresAt: world.clock.now.addingTimeInterval(3600)), by: nil,
            at: world.clock.now)
        let options = try await world.ceremonies.registrationOptions(forLink: code.lowercased())
        #expect(options.user.name == "nina")
        var authenticator = TestAuthenticator()
        let (clientData, object) = authenticator.registration(challenge: try #require(Base64URL.decode(options.challenge)))
        // The challenge is bound to the link: a session's registration cannot answer it.
        await #expect(throws: PasskeyCeremonies.Refusal.notAccepted(reason: "the challenge was issued to another ceremony")) {
            try await world.ceremonies.register(
                user: world.kari, session: world.session, name: "x", clientDataJSON: clientData, attestationObject: object)
        }
        let retry = try await world.ceremonies.registrationOptions(forLink: code)
        let (data, attestation) = authenticator.registration(challenge: try #require(Base64URL.decode(retry.challenge)))
        let started = try await world.ceremonies.register(withLink: code, name: "Nina's phone", clientDataJSON: data, attestationObject: attestation)
        #expect(started.user.id == newcomer.id && started.user.passwordHash.isEmpty)
        #expect(try await world.repository.passwordLinkUser(tokenHash: SetPasswordCode.hash(code), at: world.clock.now) == nil, "used up")
        await #expect(throws: UserAdministration.Refusal.linkNotValid) { try await world.ceremonies.registrationOptions(forLink: code) }
        let only = try #require(try await world.ceremonies.passkeys(of: started.user).first)
        await #expect(throws: PasskeyCeremonies.Refusal.lastWayIn) { try await world.ceremonies.remove(only.id, of: started.user) }
        let challenge = try #require(Base64URL.decode(try await world.ceremonies.signInOptions(attempt: "a").challenge))
        let (c, a, signature) = authenticator.assertion(challenge: challenge)
        let signedIn = try await world.ceremonies.signIn(
            attempt: "a", credentialID: Base64URL.encode(authenticator.credentialID), clientDataJSON: c,
            authenticatorData: a, signature: signature, userHandle: nil, client: "198.51.100.1")
        #expect(signedIn.user.id == newcomer.id)
        #expect(try await world.repository.accountLog(userID: newcomer.id).map(\.action) == [.created, .passkeyAdded])
    }

    @Test("without a public URL there is no relying party, and no passkeys")
    func unavailable() async throws {
        let world = try await World(publicURL: nil)
        #expect(!world.ceremonies.isAvailable)
        await #expect(throws: PasskeyCeremonies.Refusal.unavailable) { try await world.ceremonies.signInOptions(attempt: "a") }
    }
}

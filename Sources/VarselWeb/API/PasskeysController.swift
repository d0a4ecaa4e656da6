import Foundation
import HTTPTypes
import Hummingbird
import VarselPasskeys
import VarselService
import VarselStore

/// Passkeys over JSON: adding one (two steps: options, then the browser's answer), listing, renaming and removing
/// the signed-in user's; and signing in with one (options, then the assertion).
struct PasskeysController {
    let configuration: VarselServices.Configuration
    let passkeys: PasskeyCeremonies

    /// The cookie that binds a passkey sign-in's challenge to the browser that asked for it.
    static let attemptCookieName = "varsel_passkey_attempt"

    func addRoutes(to router: some RouterMethods<VarselContext>) {
        router.post("me/passkeys/options", use: registrationOptions)
        router.post("me/passkeys", use: register)
        router.get("me/passkeys", use: list)
        router.patch("me/passkeys/:id", use: rename)
        router.delete("me/passkeys/:id", use: remove)
        router.post("session/passkey/options", use: signInOptions)
        router.post("session/passkey", use: signIn)
        router.post("password/passkey/options", use: linkRegistrationOptions)
        router.post("password/passkey", use: registerWithLink)
    }

    /// A passkey as the API shows it: never its public key.
    struct PasskeyResource: Encodable {
        var id: Int64
        var name: String
        var createdAt: Date
        var lastUsedAt: Date?

        init(_ passkey: Passkey) {
            id = passkey.id
            name = passkey.name
            createdAt = passkey.createdAt
            lastUsedAt = passkey.lastUsedAt
        }
    }

    /// The browser's `PublicKeyCredential`, in WebAuthn's JSON form (bytes as base64url).
    struct Credential: Decodable {
        struct Response: Decodable {
            var clientDataJSON: String
            var attestationObject: String?
            var authenticatorData: String?
            var signature: String?
            var userHandle: String?
        }
        var id: String
        var type: String
        var response: Response

        /// Refuses a credential of another type than `public-key`, the only one WebAuthn has.
        func checkType() throws {
            guard type == "public-key" else {
                throw Problem.unprocessable(
                    "credential.type must be public-key.", errors: [.init(field: "credential.type", message: "must be public-key")])
            }
        }
    }

    struct RegistrationRequest: Decodable {
        var name: String
        var credential: Credential
    }

    struct LinkRequest: Decodable { var code: String }

    struct LinkRegistrationRequest: Decodable {
        var code: String
        var name: String
        var credential: Credential
    }

    struct SignInRequest: Decodable {
        var credential: Credential
    }

    struct List: Encodable { var items: [PasskeyResource] }
    /// The options' request body: a JSON object whose members are not read.
    struct OptionsRequest: Decodable {}
    struct Rename: Decodable { var name: String }

    func registrationOptions(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        _ = try await JSONCoding.decode(OptionsRequest.self, from: request)
        let options = try await answering { try await passkeys.registrationOptions(for: identity.user, session: identity.session) }
        return try JSONCoding.response(options, headers: [.cacheControl: "no-store"])
    }

    func register(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requirePerson()
        let body = try await JSONCoding.decode(RegistrationRequest.self, from: request)
        try body.credential.checkType()
        let clientData = try Self.bytes(body.credential.response.clientDataJSON, field: "credential.response.clientDataJSON")
        let attestation = try Self.bytes(body.credential.response.attestationObject, field: "credential.response.attestationObject")
        let passkey = try await answering(context, registering: true) {
            try await passkeys.register(
                user: identity.user, session: identity.session, name: body.name, clientDataJSON: clientData,
                attestationObject: attestation)
        }
        context.logger.info("passkey added", metadata: ["passkey.id": "\(passkey.id)"])
        return try JSONCoding.response(PasskeyResource(passkey), status: .created)
    }

    func list(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        return try JSONCoding.response(List(items: try await passkeys.passkeys(of: identity.user).map(PasskeyResource.init)))
    }

    func rename(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try Self.passkeyID(context)
        let body = try await JSONCoding.decode(Rename.self, from: request)
        let renamed = try await answering { try await passkeys.rename(id, of: identity.user, to: body.name) }
        return try JSONCoding.response(PasskeyResource(renamed))
    }

    func remove(_ request: Request, context: VarselContext) async throws -> Response {
        let identity = try context.requireUser()
        let id = try Self.passkeyID(context)
        try await answering { try await passkeys.remove(id, of: identity.user) }
        return Response(status: .noContent)
    }

    /// Starts adding a passkey instead of a password, for the holder of a one-time set-password link.
    func linkRegistrationOptions(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(LinkRequest.self, from: request)
        let options = try await answering { try await passkeys.registrationOptions(forLink: body.code) }
        return try JSONCoding.response(options, headers: [.cacheControl: "no-store"])
    }

    /// Finishes it: the link is used up and the person is signed in, as after choosing a password.
    func registerWithLink(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(LinkRegistrationRequest.self, from: request)
        try body.credential.checkType()
        let clientData = try Self.bytes(body.credential.response.clientDataJSON, field: "credential.response.clientDataJSON")
        let attestation = try Self.bytes(body.credential.response.attestationObject, field: "credential.response.attestationObject")
        let started = try await answering(context, registering: true) {
            try await passkeys.register(withLink: body.code, name: body.name, clientDataJSON: clientData, attestationObject: attestation)
        }
        context.logger.info("passkey added through a set-password link", metadata: ["user.id": "\(started.user.id)"])
        return try signedIn(started)
    }

    func signInOptions(_ request: Request, context: VarselContext) async throws -> Response {
        _ = try await JSONCoding.decode(OptionsRequest.self, from: request)
        let attempt = Tokens.random()
        let options = try await answering { try await passkeys.signInOptions(attempt: attempt) }
        var response = try JSONCoding.response(options, headers: [.cacheControl: "no-store"])
        response.setCookie(
            Cookie(
                name: Self.attemptCookieName, value: attempt, maxAge: 300, path: "/api/v1/session/passkey",
                secure: configuration.usesSecureCookies, httpOnly: true, sameSite: .strict))
        return response
    }

    /// Signs in with a passkey: answers like `POST /api/v1/session`, and sets the session cookie for the web client.
    func signIn(_ request: Request, context: VarselContext) async throws -> Response {
        let body = try await JSONCoding.decode(SignInRequest.self, from: request)
        try body.credential.checkType()
        let response = body.credential.response
        let clientData = try Self.bytes(response.clientDataJSON, field: "credential.response.clientDataJSON")
        let authenticatorData = try Self.bytes(response.authenticatorData, field: "credential.response.authenticatorData")
        let signature = try Self.bytes(response.signature, field: "credential.response.signature")
        let userHandle = try response.userHandle.flatMap { $0.isEmpty ? nil : try Self.bytes($0, field: "credential.response.userHandle") }
        let attempt = request.cookies[Self.attemptCookieName]?.value ?? ""
        let client = ClientAddress.resolve(
            peer: context.peerAddress, forwardedFor: request.headers[.forwardedFor],
            trustedProxies: configuration.trustedProxies)
        let started = try await answering(context) {
            try await passkeys.signIn(
                attempt: attempt, credentialID: body.credential.id, clientDataJSON: clientData,
                authenticatorData: authenticatorData, signature: signature, userHandle: userHandle, client: client)
        }
        var answer = try signedIn(started)
        answer.setCookie(
            Cookie(
                name: Self.attemptCookieName, value: "", maxAge: 0, path: "/api/v1/session/passkey",
                secure: configuration.usesSecureCookies, httpOnly: true, sameSite: .strict))
        return answer
    }

    // MARK: Parts

    /// The answer to a ceremony that signed someone in: `POST /api/v1/session`'s, with the session cookie for the web client.
    private func signedIn(_ started: Sessions.Started) throws -> Response {
        var answer = try JSONCoding.response(
            SessionController.SignInResponse(
                token: started.token, expiresAt: started.session.expiresAt, csrfToken: started.session.csrfToken,
                user: UserResource(started.user)),
            status: .created, headers: [.cacheControl: "no-store"])
        answer.setCookie(configuration.sessionCookie(started.token))
        return answer
    }

    /// Runs a ceremony, answering its refusals as problems; why a ceremony failed goes to the log, not the client.
    private func answering<T>(_ context: VarselContext? = nil, registering: Bool = false, _ work: () async throws -> T) async throws -> T {
        do {
            return try await work()
        } catch let refusal as PasskeyCeremonies.Refusal {
            if case let .notAccepted(reason) = refusal { context?.logger.notice("passkey not accepted", metadata: ["reason": "\(reason)"]) }
            throw Self.problem(refusal, registering: registering)
        } catch UserAdministration.Refusal.linkNotValid {
            throw Problem.notFound("This set-password link has expired, has been used, or its account is deactivated.")
        }
    }

    /// The HTTP answer to a refused passkey ceremony or change.
    /// A ceremony that does not verify is 401 when signing in, and 422 when adding (the user is signed in).
    static func problem(_ refusal: PasskeyCeremonies.Refusal, registering: Bool = false) -> Problem {
        switch refusal {
        case .unavailable: Problem.notFound("Passkeys are not set up on this server: it needs --public-url.")
        case .notAccepted where registering: Problem.unprocessable("The passkey was not added.")
        case .notAccepted: Problem.unauthorized("The passkey was not accepted.")
        case .unknownPasskey: Problem.notFound("No such passkey.")
        case .invalidName:
            Problem.unprocessable(
                "Give the passkey a name of 1 to \(PasskeyCeremonies.maximumNameLength) characters, without control characters.",
                errors: [.init(field: "name", message: "1 to \(PasskeyCeremonies.maximumNameLength) characters")])
        case .lastWayIn: Problem.conflict("This passkey is the account's only way to sign in: choose a password first.")
        case let .tooManyAttempts(seconds):
            Problem(.tooManyRequests, "Too many sign-in attempts. Try again in \(seconds) seconds.", headers: [.retryAfter: String(seconds)])
        case .deactivated: Problem.forbidden("This account is deactivated. Ask your coordinator.")
        }
    }

    /// Bytes as WebAuthn's JSON writes them, base64url without padding; the document's `pattern` for them.
    static let base64URLPattern = "^(?:[A-Za-z0-9_-]{4})*(?:[A-Za-z0-9_-]{2,3})?$"

    /// The bytes of a base64url field as ``base64URLPattern`` describes it (at least one byte), or a 422 naming it.
    static func bytes(_ text: String?, field: String) throws -> [UInt8] {
        let isBase64URL = { (byte: UInt8) in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
        guard let text, text.utf8.count >= 2, text.utf8.count % 4 != 1, text.utf8.allSatisfy(isBase64URL),
            let bytes = Base64URL.decode(text), !bytes.isEmpty
        else {
            throw Problem.unprocessable("\(field) must be base64url.", errors: [.init(field: field, message: "must be base64url")])
        }
        return bytes
    }

    static func passkeyID(_ context: VarselContext) throws -> Int64 {
        guard let id = context.parameters.get("id").flatMap({ Int64($0) }) else { throw Problem.notFound("No such passkey.") }
        return id
    }
}

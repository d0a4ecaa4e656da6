import Foundation
import HTTPTypes
import Hummingbird
import Logging
import Synchronization
import Testing
import VarselCore
import VarselMessaging
import VarselSQLite
import VarselService
import VarselStore
import VarselWeb

/// A clock the tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(DemoData.now)
    var now: Date { current.withLock { $0 } }
    func advance(by seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
    func set(_ date: Date) { current.withLock { $0 = date } }
}

/// An application over an in-memory store with four users: mentors Kari and Ola, a coordinator and an admin.
struct TestWorld {
    static let password = "correct horse battery"
    let repository = try! SQLiteRepository.inMemory()
    let clock = TestClock()
    /// Every text message and email the services sent, as the gateway and the SMTP server would have taken them.
    let outbox = RecordedMessages()
    let services: VarselServices
    /// The store the services use: ``repository`` itself, or a wrapper around it that a test injected.
    let store: any VarselRepository
    var kari: User!
    var ola: User!
    var coordinator: User!
    var admin: User!

    init(
        configuration: VarselServices.Configuration = .init(), passwords: PasswordHasher = PasswordHasher(cost: 4),
        store wrap: (SQLiteRepository) -> any VarselRepository = { $0 }
    ) async throws {
        let clock = clock
        store = wrap(repository)
        services = VarselServices(
            repository: store, now: { clock.now }, passwords: passwords,
            configuration: configuration,
            messaging: OutsideMessaging(
                textMessages: outbox, mail: outbox, mailFromAddress: "varsel@example.org",
                origin: { URL(string: "https://varsel.example.org")! }),
            logger: Logger(label: "test"))
        let users = UserAdministration(repository: repository, passwords: services.passwords)
        kari = try await users.add(username: "kari", password: Self.password, role: "mentor", displayName: "Kari", locale: "en", at: clock.now)
        ola = try await users.add(username: "ola", password: Self.password, role: "mentor", displayName: "Ola", locale: "nb", at: clock.now)
        coordinator = try await users.add(
            username: "coord", password: Self.password, role: "coordinator", displayName: "Coord", locale: "en", at: clock.now)
        admin = try await users.add(username: "admin", password: Self.password, role: "admin", displayName: "Admin", locale: "en", at: clock.now)
    }

    func app() async throws -> some ApplicationProtocol {
        Application(router: try await VarselRouter.build(services: services))
    }

    /// Runs `body` against the router with a client.
    func test(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await app().test(.router) { client in try await body(client) }
    }
}

/// A stand-in for the text-message gateway and the SMTP server: it keeps what it was given, and can be told to fail.
final class RecordedMessages: TextMessageGateway, MailTransport, Sendable {
    struct TextMessage: Equatable {
        var to: String
        var text: String
    }
    private let state = Mutex<(texts: [TextMessage], mails: [MailMessage], failures: Int)>(([], [], 0))

    var texts: [TextMessage] { state.withLock { $0.texts } }
    var mails: [MailMessage] { state.withLock { $0.mails } }

    /// The next `count` sends fail as a gateway that cannot be reached does.
    func failNext(_ count: Int) { state.withLock { $0.failures = count } }

    private func failing() -> Bool {
        state.withLock { state in
            guard state.failures > 0 else { return false }
            state.failures -= 1
            return true
        }
    }

    func send(to number: String, text: String) async throws {
        if failing() { throw TextMessageSendError.transient("the gateway could not be reached") }
        state.withLock { $0.texts.append(TextMessage(to: number, text: text)) }
    }

    func send(_ message: MailMessage) async throws {
        if failing() { throw MailSendError.transient("the server could not be reached") }
        state.withLock { $0.mails.append(message) }
    }

    /// The six digits of the last code sent, read from its message as the person would.
    func lastCode() -> String? {
        let text = state.withLock { ($0.texts.last?.text, $0.mails.last?.plainText) }
        let source = [text.0, text.1].compactMap { $0 }.last ?? ""
        guard let match = source.firstMatch(of: /(\d{3}) (\d{3})/) else { return nil }
        return String(match.1) + String(match.2)
    }
}

extension TestClientProtocol {
    /// Signs in and returns the bearer token.
    func token(_ username: String, password: String = TestWorld.password) async throws -> String {
        let response = try await execute(
            uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
            body: ByteBuffer(string: #"{"username":"\#(username)","password":"\#(password)"}"#))
        #expect(response.status == .created)
        return try JSONDecoder().decode(SignInBody.self, from: Data(buffer: response.body)).token
    }

    /// A JSON request with a bearer token.
    func call(_ method: HTTPRequest.Method, _ uri: String, token: String?, json: String? = nil, headers: HTTPFields = [:]) async throws
        -> TestResponse
    {
        var fields = headers
        if let token { fields[.authorization] = "Bearer \(token)" }
        if json != nil { fields[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: fields, body: json.map { ByteBuffer(string: $0) })
    }
}

struct SignInBody: Decodable {
    var token: String
    var csrfToken: String
}

extension TestResponse {
    /// The body decoded as `T`.
    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(T.self, from: Data(buffer: body))
    }

    var text: String { String(buffer: body) }

    /// Checks that this is a problem+json with `status` and a detail, and returns the detail.
    @discardableResult
    func expectProblem(_ status: HTTPResponse.Status, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        #expect(self.status == status, "\(text)", sourceLocation: sourceLocation)
        #expect(headers[.contentType] == "application/problem+json", sourceLocation: sourceLocation)
        let problem = try decode(ProblemBody.self)
        #expect(problem.status == Int(status.code), sourceLocation: sourceLocation)
        #expect(problem.detail.count > 10, sourceLocation: sourceLocation)
        return problem.detail
    }
}

struct ProblemBody: Decodable {
    var type: String
    var title: String
    var status: Int
    var detail: String
    var errors: [Field]?
    struct Field: Decodable {
        var field: String
        var message: String
    }
}

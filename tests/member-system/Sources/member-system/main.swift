import Foundation
import OpenAPIRuntime
import OpenAPIURLSession

/// How to call the member system, printed on a usage error.
let usage = """
    usage: member-system assign MENTOR --name NAME --address ADDRESS [--phone PHONE] [--notes NOTES]
           member-system state ASSIGNMENT_ID
           member-system generated-from
    Environment: VARSEL_URL (such as http://127.0.0.1:8080) and VARSEL_TOKEN (a bearer token).
    assign and state print one JSON line: {"id":…,"mentorId":…,"state":…}.
    generated-from prints the SHA-256 of the OpenAPI document the client was generated from.
    """

/// The line printed for an assignment: its id, its mentor and its state as the OpenAPI document names it.
struct AssignmentState: Encodable {
    let id: Int64
    let mentorId: Int64
    let state: String

    init(_ assignment: Components.Schemas.Assignment) {
        id = assignment.id
        mentorId = assignment.mentorId
        state = assignment.status.rawValue
    }
}

/// A mistake in the command line; exits with status 2 and the usage.
struct UsageError: Error {
    let message: String
}

/// The generated client for the Varsel named by `VARSEL_URL`, authenticated by `VARSEL_TOKEN`.
func makeCaseClient(environment: [String: String]) throws -> VarselCaseClient {
    guard let address = environment["VARSEL_URL"], !address.isEmpty else {
        throw MemberSystemFailure("VARSEL_URL is not set: give Varsel's base URL, such as http://127.0.0.1:8080")
    }
    guard let serverURL = URL(string: address), serverURL.scheme == "http" || serverURL.scheme == "https" else {
        throw MemberSystemFailure("VARSEL_URL is not an http or https URL")
    }
    guard let token = environment["VARSEL_TOKEN"], !token.isEmpty else {
        throw MemberSystemFailure("VARSEL_TOKEN is not set: give the bearer token Varsel issued to the member system")
    }
    let client = Client(serverURL: serverURL, transport: URLSessionTransport(), middlewares: [BearerTokenMiddleware(token: token)])
    return VarselCaseClient(client: client)
}

/// The values of `--name value` options after the positional arguments; refuses unknown or repeated options.
func options(_ arguments: ArraySlice<String>, allowed: Set<String>) throws -> [String: String] {
    var values: [String: String] = [:]
    var remaining = arguments[...]
    while let option = remaining.popFirst() {
        guard allowed.contains(option) else { throw UsageError(message: "unknown argument \(option)") }
        guard values[option] == nil else { throw UsageError(message: "\(option) is given twice") }
        guard let value = remaining.popFirst() else { throw UsageError(message: "\(option) needs a value") }
        values[option] = value
    }
    return values
}

/// Prints one JSON line on standard output.
func printLine(_ state: AssignmentState) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(state), as: UTF8.self))
}

/// Runs one command; errors leave as `MemberSystemFailure` or `UsageError`.
func run(_ arguments: [String], environment: [String: String]) async throws {
    guard let command = arguments.first else { throw UsageError(message: "no command given") }
    switch command {
    case "assign":
        guard arguments.count >= 2, !arguments[1].hasPrefix("--") else { throw UsageError(message: "assign needs a mentor's username") }
        let values = try options(arguments.dropFirst(2), allowed: ["--name", "--address", "--phone", "--notes"])
        guard let name = values["--name"], let address = values["--address"] else {
            throw UsageError(message: "assign needs --name and --address")
        }
        let varsel = try makeCaseClient(environment: environment)
        let mentor = try await varsel.mentor(username: arguments[1])
        let contact = Components.Schemas.ContactInput(
            name: name, phone: values["--phone"] ?? "", address: address, notes: values["--notes"] ?? "")
        let id = try await varsel.createAssignment(mentorId: mentor.id, contact: contact)
        try printLine(AssignmentState(try await varsel.assignment(id: id)))
    case "state":
        guard arguments.count == 2, let id = Int64(arguments[1]), id > 0 else {
            throw UsageError(message: "state needs one assignment id, a positive whole number")
        }
        let varsel = try makeCaseClient(environment: environment)
        try printLine(AssignmentState(try await varsel.assignment(id: id)))
    case "generated-from":
        guard arguments.count == 1 else { throw UsageError(message: "generated-from takes no arguments") }
        print(generatedFromDocumentSHA256)
    default:
        throw UsageError(message: "unknown command \(command)")
    }
}

do {
    try await run(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
} catch let failure as MemberSystemFailure {
    FileHandle.standardError.write(Data("member-system: \(failure.message)\n".utf8))
    exit(1)
} catch let error as UsageError {
    FileHandle.standardError.write(Data("member-system: \(error.message).\n\(usage)\n".utf8))
    exit(2)
} catch {
    FileHandle.standardError.write(Data("member-system: \(String(describing: error)).\n".utf8))
    exit(1)
}

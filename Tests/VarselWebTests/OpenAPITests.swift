import Foundation
import Hummingbird
import Testing
@testable import VarselWeb
import VarselService

@Suite("OpenAPI document")
struct OpenAPITests {
    /// The `(method, path)` pairs the YAML documents, read from its `paths:` section.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations = Set<String>()
        var currentPath: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") { inPaths = true; continue }
            if inPaths, !line.hasPrefix(" "), !line.isEmpty { inPaths = false }
            guard inPaths else { continue }
            if line.hasPrefix("  /"), line.hasSuffix(":") {
                currentPath = String(line.dropFirst(2).dropLast()).trimmingCharacters(in: CharacterSet(charactersIn: "\"'"))
            } else if let path = currentPath, line.hasPrefix("    "), !line.hasPrefix("     ") {
                let key = line.trimmingCharacters(in: .whitespaces).dropLast()
                if ["get", "put", "post", "delete", "patch"].contains(String(key)) { operations.insert("\(key.uppercased()) \(path)") }
            }
        }
        return operations
    }

    @Test("every API route the router serves is documented, and nothing undocumented is served")
    func everyRouteDocumented() async throws {
        let world = try await TestWorld()
        let router = try await VarselRouter.build(services: world.services)
        let served = Set(router.routes.map { "\($0.method.rawValue) \($0.path.description.hasPrefix("/") ? "" : "/")\($0.path)" }
            .filter { $0.contains(" /api/") || $0.hasSuffix(" /healthz") || $0.hasSuffix(" /metrics") })
        let documented = Self.documentedOperations(try VarselRouter.openAPIDocument())
        #expect(served.count > 20)
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}

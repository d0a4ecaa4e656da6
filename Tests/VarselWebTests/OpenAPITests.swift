import Foundation
import Hummingbird
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselWeb

@Suite("OpenAPI document")
struct OpenAPITests {
    /// The `(method, path)` pairs the YAML documents, read from its `paths:` section.
    static func documentedOperations(_ yaml: String) -> Set<String> {
        var operations = Set<String>()
        var currentPath: String?
        var inPaths = false
        for line in yaml.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("paths:") {
                inPaths = true
                continue
            }
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
        var served = Set(
            router.routes.map { "\($0.method.rawValue) \($0.path.description.hasPrefix("/") ? "" : "/")\($0.path)" }
                .filter { $0.contains(" /api/") || $0.hasSuffix(" /healthz") || $0.hasSuffix(" /readyz") || $0.hasSuffix(" /metrics") })
        var documented = Self.documentedOperations(try VarselRouter.openAPIDocument())
        // The document's rules say once that every path answering GET answers HEAD too.
        #expect(try VarselRouter.openAPIDocument().contains("Every path that answers GET also answers HEAD"))
        documented.formUnion(documented.filter { $0.hasPrefix("GET ") }.map { "HEAD " + $0.dropFirst(4) })
        // The router answers HEAD wherever it answers GET (`autoGenerateHeadEndpoints`); its routes list only the
        // HEAD routes registered by hand.
        served.formUnion(served.filter { $0.hasPrefix("GET ") }.map { "HEAD " + $0.dropFirst(4) })
        #expect(served.count > 20)
        #expect(served.subtracting(documented).isEmpty, "undocumented: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "documented but not served: \(documented.subtracting(served).sorted())")
    }
}

/// The document states the rules the server enforces: its limits are ``Limits``, its patterns ``TextPatterns``.
@Suite("OpenAPI document's rules")
struct OpenAPIRulesTests {
    /// The scalar at `path` (keys nested by indentation; a list item's key as `- key`), as the YAML writes it.
    static func value(at path: [String], in yaml: String) -> String? {
        let lines = yaml.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        var start = 0
        var parentIndent = -1
        for (depth, key) in path.enumerated() {
            var found: Int?
            for index in start..<lines.count {
                let line = lines[index]
                let text = line.drop { $0 == " " }
                guard !text.isEmpty, !text.hasPrefix("#") else { continue }
                let indent = line.count - text.count
                if indent <= parentIndent { break }
                if text.hasPrefix(key + ":") || text.hasPrefix("'\(key)':") || (key.hasPrefix("- ") && text == key) {
                    found = index
                    parentIndent = indent
                    break
                }
            }
            guard let found else { return nil }
            if depth == path.count - 1 {
                var value = String(lines[found].drop { $0 == " " }.dropFirst(key.count + 1)).trimmingCharacters(in: .whitespaces)
                // A flow sequence may go on over the next lines.
                var next = found + 1
                while value.hasPrefix("["), !value.hasSuffix("]"), next < lines.count {
                    value += " " + lines[next].trimmingCharacters(in: .whitespaces)
                    next += 1
                }
                return value
            }
            start = found + 1
        }
        return nil
    }

    /// `text` as a YAML double-quoted scalar, as the document writes patterns: printable ASCII as it is, the rest escaped.
    static func yamlQuoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x20...0x7E where scalar != "\"" && scalar != "\\": out.unicodeScalars.append(scalar)
            case 0...0xFF: out += "\\x" + hex(scalar.value, width: 2)
            case 0x100...0xFFFF: out += "\\u" + hex(scalar.value, width: 4)
            default: out += "\\U" + hex(scalar.value, width: 8)
            }
        }
        return out + "\""
    }

    private static func hex(_ value: UInt32, width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    static let schemas = ["components", "schemas"]
    static let json = ["requestBody", "content", "application/json", "schema", "properties"]

    /// A rule the document states: where, and what it must say there.
    struct Rule {
        var path: [String]
        var expected: String

        init(_ base: [String], _ keys: [String], _ expected: String) {
            path = base + keys
            self.expected = expected
        }

        init(_ base: [String], _ keys: [String], _ expected: Int) {
            self.init(base, keys, String(expected))
        }
    }

    static let notification: [String] = schemas + ["CreateNotificationRequest", "properties"]
    static let contact: [String] = schemas + ["ContactInput", "properties"]
    static let user: [String] = schemas + ["CreateUserRequest", "properties"]
    static let scenario: [String] = ["paths", "/api/v1/scenarios", "post"] + json
    static let scenarioDone: [String] = ["paths", "/api/v1/scenarios/{id}/done", "post"] + json
    static let visitDone: [String] = ["paths", "/api/v1/assignments/{id}/done", "post"] + json
    static let passwordChange: [String] = ["paths", "/api/v1/me/password", "put"] + json
    static let passwordChoice: [String] = ["paths", "/api/v1/password", "post"] + json
    static let passkeyNames: [[String]] = [
        ["paths", "/api/v1/me/passkeys", "post"] + json, ["paths", "/api/v1/password/passkey", "post"] + json,
        ["paths", "/api/v1/me/passkeys/{id}", "patch"] + json,
    ]

    /// Each rule: where the document states it, and what it must say.
    static var rules: [Rule] {
        let requiredLine = yamlQuoted(TextPatterns.requiredLine)
        let optionalLine = yamlQuoted(TextPatterns.optionalLine)
        let requiredText = yamlQuoted(TextPatterns.requiredText)
        let optionalText = yamlQuoted(TextPatterns.optionalText)
        var rules: [Rule] = [
            Rule(notification, ["recipients", "maxItems"], Limits.maxRecipients),
            Rule(notification, ["title", "maxLength"], Limits.maxTitleLength),
            Rule(notification, ["title", "pattern"], requiredLine),
            Rule(notification, ["body", "maxLength"], Limits.maxBodyLength),
            Rule(notification, ["body", "pattern"], optionalText),
            Rule(notification, ["personalDetails", "maxItems"], Limits.maxPersonalDetails),
            Rule(notification, ["personalDetails", "items", "maxLength"], Limits.maxTitleLength),
            Rule(notification, ["personalDetails", "items", "pattern"], optionalLine),
            Rule(schemas, ["BulkRequest", "properties", "ids", "maxItems"], Limits.maxPageSize * 10),
            Rule(schemas, ["Recipient", "oneOf", "- type: string", "pattern"], "'\(TextPatterns.username)'"),
            Rule(contact, ["name", "maxLength"], Limits.maxContactNameLength),
            Rule(contact, ["name", "pattern"], requiredLine),
            Rule(contact, ["address", "maxLength"], Limits.maxContactAddressLength),
            Rule(contact, ["address", "pattern"], requiredLine),
            Rule(contact, ["phone", "maxLength"], Limits.maxContactPhoneLength),
            Rule(contact, ["phone", "pattern"], optionalLine),
            Rule(contact, ["notes", "maxLength"], Limits.maxContactFieldLength),
            Rule(contact, ["notes", "pattern"], optionalText),
            Rule(schemas, ["CertificationInput", "properties", "name", "maxLength"], Limits.maxCertificationNameLength),
            Rule(schemas, ["CertificationInput", "properties", "name", "pattern"], requiredLine),
            Rule(user, ["username", "pattern"], "'\(TextPatterns.username)'"),
            Rule(user, ["password", "minLength"], Limits.minPasswordLength),
            Rule(user, ["password", "maxLength"], Limits.maxPasswordLength),
            Rule(user, ["displayName", "maxLength"], Limits.maxDisplayNameLength),
            Rule(user, ["displayName", "pattern"], optionalLine),
            Rule(user, ["locale", "pattern"], yamlQuoted(TextPatterns.languageTag)),
            Rule(scenario, ["title", "maxLength"], Limits.maxTitleLength),
            Rule(scenario, ["title", "pattern"], requiredLine),
            Rule(scenario, ["body", "maxLength"], Limits.maxBodyLength),
            Rule(scenario, ["body", "pattern"], requiredText),
            Rule(scenarioDone, ["reflection", "maxLength"], Limits.maxReflectionLength),
            Rule(scenarioDone, ["reflection", "pattern"], optionalText),
            Rule(visitDone, ["note", "maxLength"], Limits.maxVisitNoteLength),
            Rule(visitDone, ["note", "pattern"], optionalText),
            Rule(passwordChange, ["newPassword", "minLength"], Limits.minPasswordLength),
            Rule(passwordChange, ["newPassword", "maxLength"], Limits.maxPasswordLength),
            Rule(passwordChoice, ["password", "minLength"], Limits.minPasswordLength),
            Rule(passwordChoice, ["password", "maxLength"], Limits.maxPasswordLength),
            Rule(schemas, ["Base64URLBytes", "pattern"], "'\(PasskeysController.base64URLPattern)'"),
        ]
        func cases<T: RawRepresentable & CaseIterable>(_ type: T.Type) -> String where T.RawValue == String {
            "[" + T.allCases.map(\.rawValue).joined(separator: ", ") + "]"
        }
        rules += [
            Rule(schemas, ["NotificationKind", "enum"], cases(NotificationKind.self)),
            Rule(schemas, ["Urgency", "enum"], cases(Urgency.self)),
            Rule(schemas, ["Role", "enum"], cases(Role.self)),
            Rule(schemas, ["AssignmentStatus", "enum"], cases(AssignmentStatus.self)),
            Rule(schemas, ["AccountChange", "properties", "action", "enum"], cases(AccountAction.self)),
            Rule(
                [
                    "paths", "/api/v1/contacts/{id}/reads", "get", "responses", "200", "content", "application/json", "schema", "items",
                    "properties", "channel",
                ], ["enum"], cases(ContactReadChannel.self)),
        ]
        for base in passkeyNames {
            rules.append(Rule(base, ["name", "maxLength"], Limits.maxPasskeyNameLength))
            rules.append(Rule(base, ["name", "pattern"], requiredLine))
        }
        return rules
    }

    @Test("the document's lengths, counts, patterns and enums are the ones the server enforces and answers")
    func limitsMatch() throws {
        let yaml = try VarselRouter.openAPIDocument()
        for rule in Self.rules {
            #expect(Self.value(at: rule.path, in: yaml) == rule.expected, "\(rule.path.joined(separator: " › "))")
        }
        // The cursor's pattern, on the list's `cursor` parameter and its `nextCursor`.
        #expect(yaml.components(separatedBy: "pattern: '\(Cursor.pattern)'").count == 3)
    }

    @Test("the text patterns accept exactly what validation accepts")
    func patternsMatchValidation() throws {
        let samples = ["a", "  ", "", " a ", "a\n", "a\nb", "\n", "a\u{202E}", "\u{E0001}", "x\u{200D}y", "\u{00A0}", "tab\there", "Kari Nordmann"]
        let cases: [(String, Bool, Bool)] = [
            (TextPatterns.requiredLine, false, false), (TextPatterns.optionalLine, true, false),
            (TextPatterns.requiredText, false, true), (TextPatterns.optionalText, true, true),
        ]
        for (pattern, allowEmpty, allowsNewlines) in cases {
            let regex = try NSRegularExpression(pattern: pattern)
            for sample in samples {
                let whole = NSRange(sample.startIndex..., in: sample)
                let matches = regex.firstMatch(in: sample, options: [.anchored, .withoutAnchoringBounds], range: whole)?.range == whole
                let valid = Validation.text(sample, field: "f", max: 100, allowEmpty: allowEmpty, allowsNewlines: allowsNewlines).isEmpty
                #expect(matches == valid, "\(pattern.count) \(sample.unicodeScalars.map { $0.value })")
            }
        }
        for tag in ["en", "nb-NO", "NN", "en_GB", "de", "en-", "-en", "en\n", "no-bokmaal1"] {
            #expect(
                (tag.range(of: TextPatterns.languageTag, options: .regularExpression) != nil && !tag.contains("\n")) == Validation.isLanguageTag(tag),
                "\(tag)")
        }
        for name in ["kari", "a", "k.n_o-1", "kari nordmann", "kåri", String(repeating: "k", count: 65)] {
            #expect((name.range(of: TextPatterns.username, options: .regularExpression) != nil) == Validation.isUsername(name), "\(name)")
        }
    }
}

extension OpenAPIRulesTests {
    @Test("every operation documents the statuses every route can answer: 400 and 401, 403 when unsafe, 413 and 415 with a body")
    func everyOperationDocumentsTheCommonStatuses() throws {
        let yaml = try VarselRouter.openAPIDocument()
        for operation in OpenAPITests.documentedOperations(yaml).sorted() {
            let parts = operation.split(separator: " ", maxSplits: 1).map(String.init)
            let base = ["paths", parts[1], parts[0].lowercased()]
            var expected = ["400", "401"]
            if parts[0] != "GET" { expected.append("403") }
            if Self.value(at: base + ["requestBody"], in: yaml) != nil { expected += ["413", "415"] }
            for status in expected {
                #expect(Self.value(at: base + ["responses", status], in: yaml) != nil, "\(operation) does not document \(status)")
            }
        }
    }
}

import Foundation
import Hummingbird
import NIOCore
import Testing

@testable import VarselWeb

/// A field given twice in one object of a JSON body: found, with its path, wherever it is, and nothing else is.
@Suite("Repeated JSON members")
struct RepeatedJSONMembersTests {
    static let names: Set<String> = ["title", "body", "mentor", "contact", "name", "phone", "items", "id", "a", "x", "enabledKinds"]

    static func first(_ json: String) -> String? { RepeatedJSONMembers.first(in: Array(json.utf8), fieldNames: names) }

    @Test("a repeated field is named by its path, at the top, in a nested object and in an array's objects")
    func pathsOfRepeats() {
        #expect(Self.first(#"{"title":"a","body":"b","title":"c"}"#) == "title")
        #expect(Self.first(#"{"mentor":"kari","contact":{"name":"a","phone":"1","name":"b"}}"#) == "contact.name")
        #expect(Self.first(#"{"items":[{"id":1},{"id":2,"id":3}]}"#) == "items[1].id")
        #expect(Self.first(#" { "a" : [ [ { "x" : 1 , "x" : 2 } ] ] } "#) == "a[0][0].x")
    }

    @Test("an escaped spelling of a name is the same name")
    func escapedNames() {
        #expect(Self.first(#"{"title":"a","\u0074itle":"b"}"#) == "title")
    }

    @Test("a name spelled with other scalars that Swift counts as equal (the Kelvin sign for K) is reported in the schema's spelling")
    func schemaSpelling() {
        let path = Self.first("{\"enabledKinds\":[],\"enabled\u{212A}inds\":[]}")
        #expect(path == "enabledKinds" && path?.unicodeScalars.contains("\u{212A}") == false)
    }

    @Test("no repeat: the same name in sibling or nested objects, names inside strings, and every kind of value")
    func noRepeats() {
        #expect(Self.first(#"{"a":{"id":1},"x":{"id":1},"id":{"id":2}}"#) == nil)
        #expect(Self.first(#"{"title":"{\"title\":1,\"title\":2}","body":"\"title\":[}]"}"#) == nil)
        #expect(Self.first(#"{"id":-1.5e3,"a":true,"x":false,"name":null,"title":"\ud83d\ude00","items":[],"contact":{}}"#) == nil)
        #expect(Self.first(#"[1,"two",{"title":3}]"#) == nil)
    }

    @Test("members no schema names are ignored, inside too, so a path never holds a name the client made up")
    func otherNamesAreIgnored() {
        #expect(Self.first(#"{"Kari Nordmann":1,"Kari Nordmann":2}"#) == nil)
        #expect(Self.first(#"{"kariNordmann":{"title":1,"title":2},"title":"t"}"#) == nil)
        #expect(Self.first(#"{"contact":{"kari":[{"name":1,"name":2}]}}"#) == nil)
    }

    @Test(
        "lone or broken surrogate escapes and escapes that are not hexadecimal are read, not trapped on",
        arguments: [
            #"{"z":"\uD800\u0041","title":1,"title":2}"#, #"{"z":"\udbff\udbff","title":1,"title":2}"#,
            #"{"z":"\u00zz","title":1,"title":2}"#, #"{"z":"\uD800","title":1,"title":2}"#, #"{"z":"\uDC00\u","title":1,"title":2}"#,
        ])
    func brokenEscapes(_ json: String) {
        #expect(Self.first(json) == "title")
    }

    @Test("bytes that are not JSON end the scan too", arguments: [#"[}"#, #"{"a""#, #""open"#, #"{"a":}"#, #"{"a":1,,}"#, #"{1:2}"#, "\\u", ""])
    func notJSONEnds(_ text: String) {
        #expect(Self.first(text) == nil)
    }

    @Test("the field names are the OpenAPI document's properties, and only those")
    func namesFromTheDocument() throws {
        let names = RepeatedJSONMembers.fieldNames(inOpenAPI: try VarselRouter.openAPIDocument())
        #expect(["title", "body", "recipients", "contact", "name", "address", "notes", "mentor", "username", "password"].allSatisfy(names.contains))
        #expect(!names.contains("properties") && !names.contains("required") && !names.contains("schema") && !names.contains("Problem"))
    }

    @Test("the field names are the keys directly under each properties, nested ones too, and no other key")
    func namesFromNestedSchemas() {
        let document = """
            components:
              schemas:
                Visit:
                  type: object
                  required: [contact]
                  properties:
                    contact:
                      type: object
                      properties:
                        # a comment between members

                        name: {type: string}\r
                        properties: {type: string}
                    when: {type: string}
                  additionalProperties: false
                Other:
                  description: "properties: not a key"
            """
        #expect(RepeatedJSONMembers.fieldNames(inOpenAPI: document) == ["contact", "name", "properties", "when"])
    }

    @Test("the API refuses a repeated field with 400 naming it, never its values, and stores nothing")
    func apiRefusesRepeats() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let sent = try await client.call(
                .post, "/api/v1/notifications", token: coordinator,
                json: #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"Training","body":"b","title":"Kari Secretname"}"#)
            #expect(try sent.expectProblem(.badRequest) == "The field 'title' is given more than once; give each field once.")
            #expect(try sent.decode(ProblemBody.self).errors?.map(\.field) == ["title"])
            let assigned = try await client.call(
                .post, "/api/v1/assignments", token: coordinator,
                json: """
                    {"mentor":"kari","contact":{"name":"Kari Nordmann","phone":"+47 912 34 567","address":"Storgata 1","notes":"","name":"Per Secretname"}}
                    """)
            #expect(try assigned.decode(ProblemBody.self).errors?.map(\.field) == ["contact.name"], "\(assigned.text)")
            for response in [sent, assigned] {
                #expect(!response.text.contains("Secretname") && !response.text.contains("Nordmann"), "\(response.text)")
            }
            #expect(try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
        }
    }

    @Test("a leading byte order mark is dropped, so a repeat after it is found; UTF-16 is refused as not UTF-8")
    func onlyUTF8() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let coordinator = try await client.token("coord")
            let json = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"Training","body":"b","title":"Other"}"#
            func send(_ body: Data) async throws -> TestResponse {
                try await client.execute(
                    uri: "/api/v1/notifications", method: .post,
                    headers: [.authorization: "Bearer \(coordinator)", .contentType: "application/json"],
                    body: ByteBuffer(bytes: body))
            }
            #expect(
                try await send(Data([0xEF, 0xBB, 0xBF]) + Data(json.utf8)).expectProblem(.badRequest)
                    == "The field 'title' is given more than once; give each field once.")
            for body in [json.data(using: .utf16LittleEndian)!, json.data(using: .utf16)!, json.data(using: .utf32)!] {
                #expect(try await send(body).expectProblem(.badRequest) == "The body is not valid JSON: send it as UTF-8.")
            }
            #expect(try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items.isEmpty)
            // Once, with its byte order mark, is taken.
            let once = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"Training","body":"b"}"#
            #expect(try await send(Data([0xEF, 0xBB, 0xBF]) + Data(once.utf8)).status == .created)
        }
    }

    @Test("a member no schema names, holding an escape that is not a character, is ignored and the server stays up")
    func unknownMembersWithBrokenEscapes() async throws {
        let world = try await TestWorld()
        try await world.test { client in
            let response = try await client.execute(
                uri: "/api/v1/session", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"username":"kari","password":"\#(TestWorld.password)","z":"\uD800\u0041"}"#))
            #expect(response.status == .created)
        }
    }
}

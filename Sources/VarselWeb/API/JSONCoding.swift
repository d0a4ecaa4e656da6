import Foundation
import Hummingbird
import VarselLive
import VarselService

/// Reads and writes the API's JSON: ISO 8601 dates, bodies capped at ``Limits/maxBodyBytes``, and decoding
/// errors explained field by field.
public enum JSONCoding {
    static let encoder = WireJSON.encoder

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()

    /// Decodes the request body as `T`, or throws a 4xx ``Problem`` that says what was wrong.
    public static func decode<T: Decodable>(_ type: T.Type, from request: Request) async throws -> T {
        try decode(type, from: try await body(of: request))
    }

    /// The request's JSON body, read once: a 415, 413 or 400 ``Problem`` when it is not JSON, too large or empty.
    static func body(of request: Request) async throws -> ByteBuffer {
        guard mediaType(of: request) == "application/json" else {
            throw Problem(.unsupportedMediaType, "Send the body as JSON with 'Content-Type: application/json'.")
        }
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: Limits.maxBodyBytes)
        } catch {
            throw Problem(.contentTooLarge, "The request body is larger than \(Limits.maxBodyBytes) bytes.")
        }
        guard buffer.readableBytes > 0 else { throw Problem.badRequest("The request needs a JSON body.") }
        return buffer
    }

    /// The names of the fields the API's schemas declare, which ``RepeatedJSONMembers`` looks for.
    /// Read from the OpenAPI document when first used, which ``VarselRouter/build(services:)`` does at start-up.
    static let fieldNames = RepeatedJSONMembers.fieldNames(inOpenAPI: (try? VarselRouter.openAPIDocument()) ?? "")

    /// Decodes a body read by ``body(of:)`` as `T`, or throws a 400 ``Problem`` that names the field, also when a
    /// field is given twice in one object (``RepeatedJSONMembers``).
    static func decode<T: Decodable>(_ type: T.Type, from buffer: ByteBuffer) throws -> T {
        var bytes = Array(buffer.readableBytesView)
        // JSON between systems is UTF-8 (RFC 8259, section 8.1), which the check for repeated fields reads. A byte
        // order mark some editors write is dropped, as that section allows; UTF-16 and UTF-32, which the decoder
        // would also take, are refused: a zero byte is in every structural character of theirs and in no JSON text.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        guard !bytes.contains(0) else {
            throw Problem.badRequest("The body is not valid JSON: send it as UTF-8.")
        }
        let value: T
        do {
            value = try decoder.decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw problem(for: error)
        } catch {
            throw Problem.badRequest("The body is not valid JSON.")
        }
        if let repeated = RepeatedJSONMembers.first(in: bytes, fieldNames: fieldNames) {
            throw Problem.badRequest(
                "The field '\(repeated)' is given more than once; give each field once.",
                errors: [.init(field: repeated, message: "given more than once")])
        }
        return value
    }

    /// The request's media type, lower-cased, without parameters (`application/json`), or "" without one.
    static func mediaType(of request: Request) -> String {
        guard let value = request.headers[.contentType] else { return "" }
        return value.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
    }

    /// A JSON response with `status`.
    public static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) throws -> Response {
        response(json: try encoder.encode(value), status: status, headers: headers)
    }

    /// A JSON response of text already encoded (``HotJSON``).
    static func response(json: Data, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        response(json: ByteBuffer(bytes: json), status: status, headers: headers)
    }

    static func response(json: ByteBuffer, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: .init(byteBuffer: json))
    }

    static func problem(for error: DecodingError) -> Problem {
        func path(_ context: DecodingError.Context, appending key: String? = nil) -> String {
            let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue } + (key.map { [$0] } ?? [])
            return parts.isEmpty ? "body" : parts.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case let .keyNotFound(key, context):
            let field = path(context, appending: key.stringValue)
            return .badRequest("The field '\(field)' is required.", errors: [.init(field: field, message: "required")])
        case let .typeMismatch(expected, context) where context.codingPath.isEmpty:
            // The request as a whole, which is no field (and `body` is one: a notification's).
            return .badRequest("The request body must be \(describe(expected)).")
        case let .valueNotFound(expected, context) where context.codingPath.isEmpty:
            return .badRequest("The request body must be \(describe(expected)), not null.")
        case let .typeMismatch(expected, context):
            let field = path(context)
            return .badRequest(
                "The field '\(field)' must be \(describe(expected)).", errors: [.init(field: field, message: "must be \(describe(expected))")])
        case let .valueNotFound(expected, context):
            let field = path(context)
            return .badRequest(
                "The field '\(field)' must be \(describe(expected)), not null.", errors: [.init(field: field, message: "must not be null")])
        case let .dataCorrupted(context):
            if context.codingPath.isEmpty { return .badRequest("The body is not valid JSON.") }
            // The decoder's description quotes the value; the answer names the field only.
            let field = path(context)
            return .badRequest(
                "The field '\(field)' has a value that is not allowed; see the schema in /api/v1/openapi.yaml.",
                errors: [.init(field: field, message: "not an allowed value")])
        @unknown default:
            return .badRequest("The body could not be read.")
        }
    }

    private static func describe(_ type: Any.Type) -> String {
        switch type {
        case is String.Type: "a string"
        case is Int.Type, is Int64.Type: "an integer"
        case is Bool.Type: "true or false"
        case is Double.Type: "a number"
        default:
            String(describing: type).hasPrefix("Array") ? "an array" : "an object"
        }
    }
}

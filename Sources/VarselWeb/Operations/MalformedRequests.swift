import Foundation
import HTTPTypes
import NIOCore
import NIOHTTP1
import VarselLive

/// Answers requests that are not HTTP/1.1 at all, which the connection refuses before any route sees them: a
/// problem+json that says which part of the request is wrong, never what was sent, with the headers every response
/// gets; the connection then closes.
public enum MalformedRequests {
    /// The connection's answer to a request the HTTP/1.1 parser refused with `error`.
    @Sendable public static func answer(_ error: HTTPParserError) -> VarselHTTP1Channel.Answer {
        let problem = Problem.malformedRequest(error)
        var fields = problem.headerFields
        ResponseHeadersMiddleware<VarselContext>.harden(&fields)
        fields[.date] = Date.now.formatted(Self.httpDate)
        fields[.server] = "Varsel"
        let body = (try? problem.encoded()).map { ByteBuffer(bytes: $0) } ?? ByteBuffer()
        return VarselHTTP1Channel.Answer(head: HTTPResponse(status: problem.status, headerFields: fields), body: body)
    }

    /// An HTTP date (RFC 9110 section 5.6.7): `Sat, 28 Nov 2026 20:40:03 GMT`.
    static let httpDate = Date.VerbatimFormatStyle(
        format:
            "\(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .defaultDigits) \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\(second: .twoDigits) GMT",
        locale: Locale(identifier: "en_US_POSIX"), timeZone: TimeZone(identifier: "GMT")!, calendar: Calendar(identifier: .gregorian))
}

extension Problem {
    /// The problem for a request the HTTP/1.1 parser refused: what is wrong, and where. The parser's reasons are
    /// llhttp's, as SwiftNIO names them.
    static func malformedRequest(_ error: HTTPParserError) -> Problem {
        switch error {
        case .headerOverflow:
            return Problem(
                .requestHeaderFieldsTooLarge,
                "The request's line and header fields are larger than Varsel accepts: at most 80 KiB, in at most 1,000 fields.")
        case .unexpectedContentLength:
            return .badRequest(
                "The request's Content-Length header is given more than once.",
                errors: [
                    FieldError(field: "Content-Length", message: "given more than once")
                ])
        case .invalidContentLength:
            return .badRequest(
                "The request's Content-Length header is not valid: give it once, as a whole number of bytes, and not with Transfer-Encoding.",
                errors: [FieldError(field: "Content-Length", message: "not a valid length")])
        case .invalidChunkSize:
            return .badRequest(
                "The request's chunked body is not valid: each chunk starts with its size in hexadecimal.",
                errors: [
                    FieldError(field: "Transfer-Encoding", message: "a chunk's size is not valid")
                ])
        case .invalidMethod:
            return .badRequest("The request's method is not an HTTP method.")
        case .invalidURL, .invalidPath, .invalidQueryString, .invalidFragment, .invalidHost, .invalidPort:
            return .badRequest("The request's target is not a valid path and query.")
        case .invalidVersion, .invalidConstant:
            return .badRequest("The request line is not valid: it is a method, a target and HTTP/1.1, ending in CRLF.")
        case .invalidHeaderToken, .invalidCharactersUsed:
            return .badRequest("The request's header fields are not valid HTTP: each is a name, a colon and a value, on a line of its own.")
        default:
            return .badRequest(
                "The request is not valid HTTP/1.1: check that its lines end in CRLF and that its body's length is given by one Content-Length or by Transfer-Encoding: chunked."
            )
        }
    }
}

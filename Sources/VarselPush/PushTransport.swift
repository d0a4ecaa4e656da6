import Foundation
import NIOCore
import VarselOutboundHTTP

/// One push as sent to a push service (RFC 8030 §5).
public struct PushRequest: Sendable {
    public var endpoint: URL
    public var headers: [(String, String)]
    public var body: Data

    public init(endpoint: URL, headers: [(String, String)], body: Data) {
        self.endpoint = endpoint
        self.headers = headers
        self.body = body
    }
}

/// The push service's answer: its status and, for 429 and 503, when to try again.
public struct PushResponse: Sendable, Equatable {
    public var status: Int
    /// `Retry-After` in seconds, when the service sent one.
    public var retryAfter: TimeInterval?

    public init(status: Int, retryAfter: TimeInterval? = nil) {
        self.status = status
        self.retryAfter = retryAfter
    }

    /// Reads `Retry-After`: delay seconds or an HTTP date.
    public static func retryAfter(_ value: String?, now: Date) -> TimeInterval? {
        guard let value = value?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSince(now)) }
    }
}

/// Sends pushes; the real one speaks HTTP, tests may record instead.
public protocol PushTransport: Sendable {
    func send(_ request: PushRequest) async throws -> PushResponse
    func shutdown() async throws
}

/// Sends pushes over HTTP/1.1, each on a connection of its own. Redirects are not followed (a push service does not
/// redirect, and following one could reach an address the endpoint policy refused).
public final class HTTPPushTransport: PushTransport {
    private let client: OutboundHTTPClient

    public init(timeout: TimeAmount = .seconds(15)) {
        client = OutboundHTTPClient(timeout: timeout, bodyLimit: 4096)
    }

    public func send(_ request: PushRequest) async throws -> PushResponse {
        let response = try await client.post(request.endpoint, headers: request.headers, body: ByteBuffer(bytes: request.body))
        return PushResponse(
            status: response.status,
            retryAfter: PushResponse.retryAfter(response.headers.first(name: "Retry-After"), now: Date()))
    }

    public func shutdown() async throws {}
}

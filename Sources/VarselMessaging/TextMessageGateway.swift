import Foundation
import NIOCore
import VarselOutboundHTTP

/// Why a text message was not sent, and whether trying later may help.
public enum TextMessageSendError: Error, Sendable, Equatable {
    /// Worth trying again later: the gateway could not be reached, timed out, or answered 429 or 5xx.
    case transient(String)
    /// Retrying will not help: the gateway refused the message (another 4xx).
    case permanent(String)
}

/// Sends one text message to a number in E.164.
public protocol TextMessageGateway: Sendable {
    func send(to number: String, text: String) async throws
    /// Closes what it holds open; called once, when the server stops.
    func shutdown() async throws
}

extension TextMessageGateway {
    public func shutdown() async throws {}
}

/// A text-message gateway reached over HTTPS, in one of the two request formats providers commonly take.
public final class HTTPTextMessageGateway: TextMessageGateway {
    /// How a request carries the message.
    public enum Format: String, Sendable, CaseIterable {
        /// `POST` a JSON object `{"from", "to", "text"}` with `Authorization: Bearer <token>`.
        case json
        /// `POST` a form `from`, `to`, `message` with HTTP basic authentication, the token being `user:password`
        /// (46elks, and the many gateways that copy its form).
        case form
    }

    /// Where and how to send.
    public struct Configuration: Sendable {
        public var url: URL
        public var format: Format
        /// The bearer token (`json`) or `user:password` (`form`); read from a file or the environment, never an argument.
        public var token: String
        /// The sender name or number the phone shows (at most 11 letters and digits for a name).
        public var sender: String
        public var timeout: TimeAmount

        public init(url: URL, format: Format = .json, token: String, sender: String = "Varsel", timeout: TimeAmount = .seconds(15)) {
            self.url = url
            self.format = format
            self.token = token
            self.sender = sender
            self.timeout = timeout
        }
    }

    let configuration: Configuration
    let client: OutboundHTTPClient

    /// A gateway with a client of its own that follows no redirect (the token must reach only the configured URL).
    public init(configuration: Configuration) {
        self.configuration = configuration
        client = OutboundHTTPClient(timeout: configuration.timeout, bodyLimit: 4096)
    }

    /// Nothing to close: each message has a connection of its own.
    public func shutdown() async throws {}

    public func send(to number: String, text: String) async throws {
        var headers: [(String, String)] = []
        let body: ByteBuffer
        switch configuration.format {
        case .json:
            let json = try JSONSerialization.data(withJSONObject: ["from": configuration.sender, "to": number, "text": text], options: [.sortedKeys])
            headers = [("Content-Type", "application/json"), ("Authorization", "Bearer \(configuration.token)")]
            body = ByteBuffer(bytes: json)
        case .form:
            let fields = [("from", configuration.sender), ("to", number), ("message", text)]
            headers = [
                ("Content-Type", "application/x-www-form-urlencoded"),
                ("Authorization", "Basic \(Data(configuration.token.utf8).base64EncodedString())"),
            ]
            body = ByteBuffer(string: fields.map { "\($0.0)=\(Self.formEncoded($0.1))" }.joined(separator: "&"))
        }
        let status: Int
        do {
            status = try await client.post(configuration.url, headers: headers, body: body).status
        } catch {
            throw TextMessageSendError.transient("the gateway could not be reached")
        }
        switch status {
        case 200..<300: return
        case 429, 500..<600: throw TextMessageSendError.transient("the gateway answered \(status)")
        default: throw TextMessageSendError.permanent("the gateway refused the message (\(status))")
        }
    }

    /// `text` encoded for an `application/x-www-form-urlencoded` body.
    static func formEncoded(_ text: String) -> String {
        let allowed = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._*")
        return (text.addingPercentEncoding(withAllowedCharacters: allowed) ?? "").replacingOccurrences(of: "%20", with: "+")
    }
}

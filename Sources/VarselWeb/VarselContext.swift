import Hummingbird
import NIOCore
import VarselService
import VarselStore

/// The request context: Hummingbird's core storage plus who is signed in.
public struct VarselContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The signed-in user, set by ``AuthenticationMiddleware``; nil for anonymous requests.
    public var identity: Identity?
    /// The socket peer's IP address; nil in router tests. See ``ClientAddress`` for the address used to throttle.
    public var peerAddress: String?
    /// The connection, so a stream whose client stopped reading can be closed for real.
    public var channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        identity = nil
        peerAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }

    /// JSON bodies larger than this are refused with 413 before they are decoded.
    public var maxUploadSize: Int { Limits.maxBodyBytes }
}

/// A signed-in user and how they proved it.
public struct Identity: Sendable {
    public var user: User
    public var session: Session
    public var method: Method

    /// How the request was authenticated.
    public enum Method: Sendable {
        /// `Authorization: Bearer …`: API clients. No CSRF check needed: browsers never send it on their own.
        case bearer
        /// The session cookie: the web client. Unsafe requests must echo the session's CSRF token.
        case cookie
        /// `Authorization: Bearer varsel_it_…`: a member or case system's integration token. Its session stands for
        /// the token and is never stored.
        case integration
    }
}

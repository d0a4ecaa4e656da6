import NIOCore

/// Where a live stream writes once it has its connection: the connection's own SwiftNIO channel
/// (``StreamHandoffHandler``) or, on Linux, the bare socket (``StreamSocket``).
///
/// Every call comes on the stream's event loop.
protocol StreamConnection: AnyObject {
    /// Writes one buffer of the stream's frames as a chunk of the response; a client too far behind is closed.
    func send(_ buffer: ByteBuffer)
    /// Ends the response with its last chunk, then closes the connection.
    func finish()
    /// Closes the connection now, and ends the stream.
    func abort()
}

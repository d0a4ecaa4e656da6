import NIOCore

#if os(Linux)
    import CVarselEpoll
    import Foundation
    import Glibc
    import Synchronization

    /// Holds the sockets of live streams that left SwiftNIO: one thread waits on one epoll set for all of them and tells
    /// each stream's event loop when its client left, sent something, or has room again.
    ///
    /// SwiftNIO keeps a channel for each connection: the channel, its pipeline of HTTP handlers, its read buffer and its
    /// queue of writes, about 4 KiB for as long as the connection is open. An open stream needs none of it, only its
    /// socket. So once a stream's response is open, ``StreamHandoffHandler`` hands a copy of its socket here and lets
    /// SwiftNIO's channel close, and the stream writes to the socket itself (``StreamSocket``) from its event loop.
    ///
    /// The thread does no I/O: it looks up whose socket had an event and passes the event to that stream's loop, where
    /// the socket is read, written and closed. One process-wide set serves every server (``shared``); its thread starts
    /// with the first socket.
    public final class StreamSockets: Sendable {
        /// The process's set, which Varsel's servers use.
        public static let shared = StreamSockets()

        private struct Entry {
            let eventLoop: any EventLoop
            let socket: NIOLoopBound<StreamSocket>
        }

        private struct State {
            var nextID: UInt64 = 0
            var entries: [UInt64: Entry] = [:]
            var isWatching = false
            /// The epoll set failed for good: no socket is taken any more.
            var isBroken = false
        }

        private let state = Mutex(State())
        /// The epoll set; -1 when the kernel refused one (streams then stay on their channels).
        private let epoll: CInt
        /// How long a client that does not read may hold its connection while no watchdog watches the stream: while
        /// the stream's opening waits to reach the socket before the socket is handed over, and while its last chunk
        /// waits. The connection is closed then, and the client resumes from its last event, as after any end.
        let readWait: TimeAmount

        init(readWait: TimeAmount = .seconds(10)) {
            epoll = epoll_create1(CInt(EPOLL_CLOEXEC))
            self.readWait = readWait
        }

        /// How many sockets it holds.
        public var count: Int { state.withLock { $0.entries.count } }

        /// Waits until every socket it holds has closed, for at most `limit`. A server that shuts down finishes its
        /// streams through the broker; this lets their last chunks go out before the process ends.
        public func drained(within limit: Duration) async {
            let deadline = ContinuousClock.now + limit
            while count > 0, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        }

        /// Takes `descriptor`, a connected, non-blocking stream socket no one else uses, for `stream`, whose loop is the
        /// current one; nil when it cannot be watched (the caller still owns the descriptor then).
        func adopt(_ descriptor: CInt, for stream: LiveStream, on eventLoop: any EventLoop) -> StreamSocket? {
            guard epoll >= 0 else { return nil }
            let adopted: (id: UInt64, socket: StreamSocket)? = state.withLock { state in
                guard !state.isBroken else { return nil }
                state.nextID += 1
                let socket = StreamSocket(descriptor: descriptor, id: state.nextID, stream: stream, sockets: self)
                state.entries[state.nextID] = Entry(eventLoop: eventLoop, socket: NIOLoopBound(socket, eventLoop: eventLoop))
                return (state.nextID, socket)
            }
            guard let (id, socket) = adopted else { return nil }
            // Edge-triggered: each change is told once, and a socket that has room (as it has now) is told when it
            // fills and empties again, not on every round.
            var event = epoll_event()
            event.events = EPOLLIN.rawValue | EPOLLOUT.rawValue | EPOLLRDHUP.rawValue | EPOLLET.rawValue
            event.data.u64 = id
            guard epoll_ctl(epoll, EPOLL_CTL_ADD, descriptor, &event) == 0 else {
                _ = state.withLock { $0.entries.removeValue(forKey: id) }
                return nil
            }
            // The thread starts with the first socket the set watches.
            let startsWatching = state.withLock { state in
                defer { state.isWatching = true }
                return !state.isWatching
            }
            if startsWatching {
                let thread = Thread { [self] in watch() }
                thread.name = "varsel-stream-sockets"
                thread.start()
            }
            return socket
        }

        /// Stops watching `descriptor`, which the socket `id` is about to close.
        func forget(_ descriptor: CInt, id: UInt64) {
            var event = epoll_event()
            _ = epoll_ctl(epoll, EPOLL_CTL_DEL, descriptor, &event)
            _ = state.withLock { $0.entries.removeValue(forKey: id) }
        }

        /// Waits for the sockets' events and passes each to its stream's loop; runs for the life of the process.
        private func watch() {
            let capacity = 256
            let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: capacity)
            defer { events.deallocate() }
            while true {
                let count = epoll_wait(epoll, events, CInt(capacity), -1)
                guard count >= 0 else {
                    if errno == EINTR { continue }
                    return giveUp()
                }
                let ready = state.withLock { state in
                    (0..<Int(count)).compactMap { index -> (Entry, UInt32)? in
                        // A socket forgotten since its event was queued is gone.
                        guard let entry = state.entries[events[index].data.u64] else { return nil }
                        return (entry, events[index].events)
                    }
                }
                for (entry, flags) in ready {
                    entry.eventLoop.execute { entry.socket.value.handle(events: flags) }
                }
            }
        }

        /// The epoll set failed for good: the streams it holds end (their clients resume from their last event), and
        /// new ones stay on their channels.
        private func giveUp() {
            let held = state.withLock { state in
                state.isBroken = true
                return Array(state.entries.values)
            }
            for entry in held {
                entry.eventLoop.execute { entry.socket.value.abort() }
            }
        }

        /// The socket descriptor of `channel`, a connected TCP channel of SwiftNIO's; nil when it cannot be told for sure.
        ///
        /// SwiftNIO keeps the descriptor to itself, but its channel's description names it (`fd=12`). The number is
        /// taken only if the socket it names has the channel's own local and remote addresses; a description worded
        /// otherwise (another SwiftNIO, a test channel) gives nil, and the stream stays on its channel. Called on the
        /// channel's loop, where SwiftNIO closes its sockets, so the number cannot change hands meanwhile.
        static func descriptor(of channel: any Channel) -> CInt? {
            let text = String(describing: channel)
            guard let marker = text.range(of: "fd=") else { return nil }
            guard let descriptor = CInt(text[marker.upperBound...].prefix(while: \.isNumber)), descriptor >= 0 else { return nil }
            guard has(channel.localAddress, descriptor, getsockname), has(channel.remoteAddress, descriptor, getpeername) else {
                return nil
            }
            return descriptor
        }

        /// Whether the socket `descriptor`'s address, as `read` gives it, is `address` (IPv4 or IPv6).
        private static func has(
            _ address: SocketAddress?, _ descriptor: CInt,
            _ read: (CInt, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> CInt
        ) -> Bool {
            guard let address else { return false }
            switch address {
            case .v4, .v6: break
            case .unixDomainSocket: return false
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let status = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { read(descriptor, $0, &length) }
            }
            guard status == 0 else { return false }
            return address.withSockAddr { pointer, size in
                size == Int(length) && withUnsafeBytes(of: &storage) { memcmp($0.baseAddress!, pointer, size) == 0 }
            }
        }
    }

    /// A live stream's socket once SwiftNIO has let go of it: the stream's response goes on here, in chunks, written
    /// straight from the stream's event loop.
    ///
    /// It keeps only what the socket has not taken yet, which is usually nothing. What the client sends is read and
    /// dropped; its leaving ends the stream. Writes that wait behind a socket the client stopped reading count against the
    /// stream's ``StreamPace``, which decides when the client is too slow, as on a SwiftNIO channel. Touched only on the
    /// stream's loop.
    final class StreamSocket: StreamConnection {
        private var descriptor: CInt
        private let id: UInt64
        private let stream: LiveStream
        private let sockets: StreamSockets
        /// The chunks' bytes the socket has not taken.
        private var unsent: ByteBuffer?
        private var isFinishing = false

        fileprivate init(descriptor: CInt, id: UInt64, stream: LiveStream, sockets: StreamSockets) {
            self.descriptor = descriptor
            self.id = id
            self.stream = stream
            self.sockets = sockets
        }

        private var isOpen: Bool { descriptor >= 0 }

        func send(_ buffer: ByteBuffer) {
            guard isOpen, !isFinishing, buffer.readableBytes > 0 else { return }
            if unsent != nil {
                guard stream.pace.writeWaits() else {
                    stream.services.metrics.streamDroppedAsSlow()
                    return abort()
                }
            }
            var chunk = unsent ?? ByteBuffer()
            chunk.writeString(String(buffer.readableBytes, radix: 16))
            chunk.writeStaticString("\r\n")
            chunk.writeImmutableBuffer(buffer)
            chunk.writeStaticString("\r\n")
            unsent = chunk
            writeUnsent()
        }

        func finish() {
            guard isOpen, !isFinishing else { return }
            isFinishing = true
            var last = unsent ?? ByteBuffer()
            last.writeStaticString("0\r\n\r\n")
            unsent = last
            writeUnsent()
            guard isOpen else { return }
            // A client that does not read the last chunk is not waited for long.
            let socket = NIOLoopBound(self, eventLoop: stream.eventLoop)
            stream.eventLoop.scheduleTask(in: sockets.readWait) { socket.value.close() }
        }

        func abort() {
            guard isOpen else { return }
            close()
            stream.outputClosed()
        }

        /// Answers what epoll saw: the client left or failed, sent bytes, or the socket has room again.
        func handle(events: UInt32) {
            guard isOpen else { return }
            if events & (EPOLLERR.rawValue | EPOLLHUP.rawValue | EPOLLRDHUP.rawValue) != 0 { return abort() }
            if events & EPOLLIN.rawValue != 0 {
                dropWhatWasSent()
                guard isOpen else { return }
            }
            if events & EPOLLOUT.rawValue != 0 { writeUnsent() }
        }

        /// Reads and drops what the client sent, which means nothing once the stream has the connection; a client
        /// that closed ends the stream. A client that keeps sending gets a few reads at a time, and the loop's other
        /// work goes on in between.
        private func dropWhatWasSent() {
            withUnsafeTemporaryAllocation(byteCount: 4_096, alignment: 1) { scratch in
                for _ in 0..<16 {
                    let count = Glibc.read(descriptor, scratch.baseAddress, scratch.count)
                    if count > 0 { continue }
                    if count < 0, errno == EINTR { continue }
                    if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
                    return abort()
                }
                // Not read to the end yet: epoll says nothing more until it is, so go on after the loop's other work.
                let socket = NIOLoopBound(self, eventLoop: stream.eventLoop)
                stream.eventLoop.execute { socket.value.handle(events: EPOLLIN.rawValue) }
            }
        }

        /// Writes what the socket will take; keeps the rest for when it has room. Closes once the last chunk is out.
        private func writeUnsent() {
            while var bytes = unsent {
                let written = bytes.withUnsafeReadableBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, CInt(MSG_NOSIGNAL)) }
                if written < 0 {
                    if errno == EINTR { continue }
                    if errno == EAGAIN || errno == EWOULDBLOCK {
                        stream.pace.blocked()
                        return
                    }
                    return abort()
                }
                bytes.moveReaderIndex(forwardBy: written)
                guard bytes.readableBytes == 0 else {
                    unsent = bytes
                    continue
                }
                unsent = nil
                stream.pace.socketHasRoom()
            }
            if isFinishing { close() }
        }

        /// Closes the socket, once.
        private func close() {
            guard isOpen else { return }
            sockets.forget(descriptor, id: id)
            _ = Glibc.close(descriptor)
            descriptor = -1
            unsent = nil
        }
    }
#else
    /// Live streams' sockets outside SwiftNIO: Linux only (epoll); elsewhere every stream stays on its channel.
    public final class StreamSockets: Sendable {
        public static let shared = StreamSockets()
        public var count: Int { 0 }
        public func drained(within limit: Duration) async {}
    }
#endif

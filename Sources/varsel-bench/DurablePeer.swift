import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The durable peer Varsel's live stream is measured against: nginx with the nchan module, keeping every message in
/// Redis, which writes it to its append-only file and syncs that file before answering (`appendfsync always`).
///
/// Like Varsel, it stores a message durably before the publisher is answered and the subscribers get it; unlike
/// Varsel it keeps no notification list, unread counts or preferences. One nginx process (no master, one worker) and
/// one Redis, each on a free loopback port, in a temporary directory removed at ``stop()``. Debian's `nginx`,
/// `libnginx-mod-nchan` and `redis-server` packages provide them (`scripts/bench.sh` installs them).
final class NchanPeer: Sendable {
    /// The nginx port: `GET /sub/ID` subscribes to channel `ID` as an event stream, `POST /pub/ID` publishes to it.
    let port: Int
    let nginx: ServerProcess
    let redis: ServerProcess
    let directory: URL

    /// What the benchmark's report calls it.
    static let label = "nginx + nchan on Redis (appendfsync always)"
    /// Where Debian's package puts the module.
    static let module = "/usr/lib/nginx/modules/ngx_nchan_module.so"

    /// Starts Redis, then nginx pointed at it, and returns once both accept connections.
    static func start() async throws -> NchanPeer {
        guard FileManager.default.fileExists(atPath: module) else { throw PeerError.missing("libnginx-mod-nchan (\(module))") }
        let nginxPath = try executable("nginx", package: "nginx")
        let redisPath = try executable("redis-server", package: "redis-server")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("varsel-bench-nchan-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let redisPort = try freePort()
        let redis = try ServerProcess(
            executable: redisPath,
            arguments: [
                "--port", String(redisPort), "--bind", "127.0.0.1", "--dir", directory.path, "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--daemonize", "no",
            ], quiet: true)
        try await waitUntilListening(port: redisPort)
        let port = try freePort()
        let configuration = directory.appendingPathComponent("nginx.conf")
        try nginxConfiguration(port: port, redisPort: redisPort, directory: directory).write(to: configuration, atomically: true, encoding: .utf8)
        let nginx = try ServerProcess(
            executable: nginxPath,
            arguments: ["-p", directory.path, "-e", directory.appendingPathComponent("error.log").path, "-c", configuration.path],
            quiet: true)
        try await waitUntilListening(port: port)
        return NchanPeer(port: port, nginx: nginx, redis: redis, directory: directory)
    }

    private init(port: Int, nginx: ServerProcess, redis: ServerProcess, directory: URL) {
        self.port = port
        self.nginx = nginx
        self.redis = redis
        self.directory = directory
    }

    /// Both processes: their CPU and memory are the peer's.
    var processes: [ServerProcess] { [nginx, redis] }

    /// Kills nginx, then Redis, and removes their directory. Killed: nothing they keep is needed afterwards, and they
    /// inherit the benchmark's signal mask, in which SIGTERM is blocked.
    func stop() {
        nginx.stop(signal: SIGKILL)
        redis.stop(signal: SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    /// One nginx process serving nchan's subscriber and publisher locations, every channel stored in Redis.
    static func nginxConfiguration(port: Int, redisPort: Int, directory: URL) -> String {
        """
        load_module \(module);
        master_process off;
        daemon off;
        pid \(directory.path)/nginx.pid;
        worker_rlimit_nofile 20000;
        events { worker_connections 19500; }
        http {
          access_log off;
          client_body_temp_path \(directory.path)/body;
          upstream redis { nchan_redis_server "redis://127.0.0.1:\(redisPort)"; }
          server {
            listen 127.0.0.1:\(port) backlog=4096;
            location ~ ^/sub/(\\w+)$ { nchan_subscriber eventsource; nchan_channel_id $1; nchan_redis_pass redis; }
            location ~ ^/pub/(\\w+)$ { nchan_publisher; nchan_channel_id $1; nchan_redis_pass redis; }
          }
        }

        """
    }

    /// The path of `name` on the PATH or in /usr/sbin (where Debian puts nginx).
    static func executable(_ name: String, package: String) throws -> String {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/sbin", "/usr/bin"]
        for directory in directories where FileManager.default.isExecutableFile(atPath: "\(directory)/\(name)") {
            return "\(directory)/\(name)"
        }
        throw PeerError.missing("\(package) (\(name))")
    }

    /// A loopback port nothing listens on now.
    static func freePort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw PeerError.noPort }
        defer { close(socket) }
        var address = loopback(port: 0)
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0 }
        }
        guard bound else { throw PeerError.noPort }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The address of `port` on 127.0.0.1 (0: any free port, when binding).
    static func loopback(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        return address
    }

    /// Waits, up to ten seconds, until something accepts connections on the loopback `port`.
    static func waitUntilListening(port: Int) async throws {
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while ContinuousClock.now < deadline {
            let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = loopback(port: port)
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
            }
            close(socket)
            if connected { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw BenchmarkError.serverDidNotStart
    }

    enum PeerError: Error, CustomStringConvertible {
        case missing(String)
        case noPort

        var description: String {
            switch self {
            case let .missing(package): "The durable peer needs \(package): apt-get install nginx libnginx-mod-nchan redis-server."
            case .noPort: "No free loopback port for the durable peer."
            }
        }
    }
}

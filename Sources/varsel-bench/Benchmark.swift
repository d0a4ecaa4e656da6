import ArgumentParser
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization
import VarselCore
import VarselPostgres
import VarselSQLite
import VarselService
import VarselStore
import VarselWeb

#if canImport(Glibc)
    import Glibc
#endif

/// Measures the live event stream: N subscribers, each a different mentor, while a coordinator creates
/// notifications at a steady rate against a real `varsel serve` process on a fresh SQLite file.
@main
struct Benchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "varsel-bench", abstract: "Benchmark the live event stream.")

    @Option(help: "Event-stream subscribers, each a different mentor.") var subscribers = 1000
    @Option(help: "Notifications created per second.") var rate = 1000
    @Option(help: "Seconds of steady creation.") var duration = 10
    @Option(help: "Parallel connections the coordinator creates on.") var creators = 8
    @Option(help: "The varsel executable (default: next to this one).") var varsel: String?
    @Option(help: "The server's SQLite durability: full (the default) or normal.") var durability = "full"
    @Option(help: "The server's --commit-interval in milliseconds (default: the server's own).") var commitInterval: Double?
    @Option(help: "A PostgreSQL URL of an empty database to run on instead of a fresh SQLite file.") var postgres: String?
    @Option(help: "Notifications each mentor already has, all read: a store in use rather than a new one.") var history = 0
    @Option(help: "Server instances sharing the database (PostgreSQL only); streams and creators are spread over them.")
    var instances = 1
    @Option(help: "Notifications to every subscriber at once (up to 1,000 recipients each), timing the next writes meanwhile.")
    var fanouts = 5
    @Option(help: "Write each notification's send time and latency, in milliseconds from the first send, to this CSV file.")
    var latencyLog: String?
    @Flag(help: "Open the streams as the web page does (`?player=web`): each arrival also gets its cue and its announcement.")
    var players = false
    @Option(
        help:
            "Measure a durable peer instead of Varsel, with the same client, streams and rate: nchan (nginx and nchan on Redis, syncing every write)."
    )
    var peer: String?
    @Option(help: "Also write the run's figures as JSON to this file (for scripts/bench.sh's comparison).") var summary: String?
    @Flag(inversion: .prefixedNo, help: "Afterwards, measure the server's CPU per bare GET /healthz at the same rate: the HTTP layer's floor.")
    var httpFloor = true
    @Option(
        help: ArgumentHelp(
            "Serve GET /healthz as a bare floor server (nio or hummingbird) instead; for the benchmark's own use.",
            visibility: .hidden))
    var serveFloor: String?

    func run() async throws {
        if let serveFloor {
            guard let floor = FloorServer(rawValue: serveFloor) else { throw ValidationError("--serve-floor is nio or hummingbird.") }
            return try await floor.serve()
        }
        raiseOpenFileLimit()
        if let peer {
            guard peer == "nchan" else { throw ValidationError("--peer is nchan.") }
            return try await runNchan()
        }
        let database: String
        if let postgres {
            database = postgres
        } else {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("varsel-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            database = directory.appendingPathComponent("bench.sqlite").path
        }
        let instances = postgres == nil ? 1 : max(1, instances)

        print("Seeding \(subscribers) mentors and a coordinator…")
        let seeded = try await seed(database: database)

        let executable = varsel ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("varsel").path
        var servers: [ServerProcess] = []
        defer {
            for server in servers { server.stop() }
        }
        var ports: [Int] = []
        for _ in 0..<instances {
            let server = try ServerProcess(
                executable: executable, database: database,
                extraArguments: postgres == nil ? sqliteArguments : [])
            servers.append(server)
            ports.append(try server.waitForPort())
        }
        let group = MultiThreadedEventLoopGroup.singleton
        let received = ReceiveLog()
        let (channels, connectSeconds, rssBefore, rssAfter) = try await connectStreams(servers: servers, received: received) { index in
            try await openStream(group: group, port: ports[index % ports.count], token: seeded.mentorTokens[index], log: received)
        }

        var fanout: FanoutTiming?
        if fanouts > 0 {
            print("Timing single writes alone, then during \(fanouts) notifications to \(min(subscribers, Limits.maxRecipients)) streams at once…")
            fanout = try await timeWritesDuringFanouts(port: ports[0], seeded: seeded, group: group)
        }
        print("Creating \(rate) notifications/s for \(duration) s…")
        let creatorPorts = ports
        let run = try await deliver(ports: creatorPorts, token: seeded.coordinatorToken, group: group, received: received, servers: servers) {
            client, sequence in
            let recipient = seeded.mentorIDs[sequence % seeded.mentorIDs.count]
            try await client.post(json: #"{"recipients":[\#(recipient)],"kind":"scenarioPrompt","title":"bench-\#(sequence)","body":"b"}"#)
        }
        let total = run.total
        // The same rate of the cheapest request there is, with the same streams open: what the HTTP layer costs alone.
        var floorMilliseconds: Double?
        if httpFloor {
            print("Sending \(rate) GET /healthz per second for \(duration) s…")
            let cpuBeforeFloor = servers.map { $0.cpuSeconds() }.reduce(0, +)
            try await paced(total: total, ports: creatorPorts, token: seeded.coordinatorToken, group: group) { client, _ in
                try await client.getHealth()
            }
            floorMilliseconds = (servers.map { $0.cpuSeconds() }.reduce(0, +) - cpuBeforeFloor) * 1000 / Double(max(1, total))
        }
        for channel in channels { channel.close(promise: nil) }
        // The same GETs again, answered by Hummingbird alone and by SwiftNIO alone: what the platform costs.
        var platformFloors: [(FloorServer, Double)] = []
        if httpFloor {
            for floor in [FloorServer.hummingbird, .swiftNIO] {
                print("Sending \(rate) GET /healthz per second for \(duration) s to \(floor.label)…")
                platformFloors.append((floor, try await floorCPU(of: floor, total: total, group: group)))
            }
        }

        print("")
        let interval = commitInterval.map { "commit interval \(String(format: "%g", $0)) ms" } ?? "default commit interval"
        let store =
            postgres == nil
            ? "SQLite synchronous=\(durability.uppercased()), \(interval)" : "PostgreSQL, \(instances) instance\(instances == 1 ? "" : "s")"
        let build = isDebugBuild ? "DEBUG build: figures not comparable" : "release"
        print("Varsel event-stream benchmark (\(build), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(store))")
        if players { print("  streams:                   the web page's (each arrival with its cue and announcement)") }
        if history > 0 { print("  history:                   \(history) read notifications per mentor before the run") }
        printDelivery(run, received: received, connectSeconds: connectSeconds, rssBefore: rssBefore, rssAfter: rssAfter)
        if let fanout {
            print(
                "  next write, alone:         p50 \(format(fanout.alone.p50)) ms, max \(format(fanout.alone.max)) ms (\(fanout.alone.count) writes)")
            print(
                "  next write, during fan-out: p50 \(format(fanout.during.p50)) ms, max \(format(fanout.during.max)) ms (\(fanout.during.count) writes, \(fanouts) fan-outs to \(fanout.recipients) streams)"
            )
            print("  longest wait per fan-out:  \(fanout.longestWaits.map(format).joined(separator: ", ")) ms")
            print("  the fan-out's own write:   \(fanout.fanoutWrites.map(format).joined(separator: ", ")) ms")
        }
        print(
            "  server CPU:                \(format(run.cpuSeconds)) s in all, \(String(format: "%.2f", run.cpuMilliseconds)) ms per notification"
        )
        if let floorMilliseconds {
            print(
                "  server CPU, bare GET:      \(String(format: "%.2f", floorMilliseconds)) ms per GET /healthz at the same rate (the HTTP layer alone)"
            )
        }
        for (floor, milliseconds) in platformFloors {
            let name = "    \(floor.label):".padding(toLength: 29, withPad: " ", startingAt: 0)
            print("\(name)\(String(format: "%.2f", milliseconds)) ms per GET /healthz, same rate (\(floor.summary))")
        }
        print("  machine load (1 min):      \(loadAverage()); waiting for the disk \(format(run.ioWaitPercent)) % of the time")
        try writeSummary(target: "varsel", run: run, rssBefore: rssBefore, rssAfter: rssAfter)
    }

    /// The same streams, rate and client against nginx + nchan on Redis: subscriber `i` listens on channel `i`, and
    /// notification `n` is published to channel `n % subscribers`.
    func runNchan() async throws {
        print("Starting \(NchanPeer.label)…")
        let peer = try await NchanPeer.start()
        defer { peer.stop() }
        let servers = peer.processes
        let group = MultiThreadedEventLoopGroup.singleton
        let received = ReceiveLog()
        let (channels, connectSeconds, rssBefore, rssAfter) = try await connectStreams(servers: servers, received: received) { index in
            let request = "GET /sub/\(index) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.browserHeaders)\r\n"
            return try await openStream(group: group, port: peer.port, request: request, format: .nchan, log: received)
        }

        print("Publishing \(rate) messages/s for \(duration) s…")
        let subscribers = subscribers
        let run = try await deliver(ports: [peer.port], token: "", group: group, received: received, servers: servers) { client, sequence in
            try await client.post(
                path: "/pub/\(sequence % subscribers)", body: "bench-\(sequence)", contentType: "text/plain", accepting: [.created, .accepted])
        }
        for channel in channels { channel.close(promise: nil) }

        print("")
        let build = isDebugBuild ? "DEBUG build of the client" : "release client"
        print("\(NchanPeer.label) event-stream benchmark (\(build), \(ProcessInfo.processInfo.activeProcessorCount) cores)")
        printDelivery(run, received: received, connectSeconds: connectSeconds, rssBefore: rssBefore, rssAfter: rssAfter)
        print("  server CPU (nginx, Redis): \(format(run.cpuSeconds)) s in all, \(String(format: "%.2f", run.cpuMilliseconds)) ms per message")
        print("  machine load (1 min):      \(loadAverage()); waiting for the disk \(format(run.ioWaitPercent)) % of the time")
        try writeSummary(target: "nchan", run: run, rssBefore: rssBefore, rssAfter: rssAfter)
    }

    /// What one run of creating at ``rate`` for ``duration`` measured.
    struct Delivery {
        var total: Int
        var createSeconds: Double
        var deliverSeconds: Double
        var cpuSeconds: Double
        /// The share of the machine's CPU time spent waiting for the disk while notifications were created, in percent:
        /// a tail that grows with it is the disk's.
        var ioWaitPercent: Double
        /// Every delivered notification's latency in milliseconds, sorted.
        var latencies: [Double]
        var samples: [(sentAt: ContinuousClock.Instant?, milliseconds: Double?)]
        var start: ContinuousClock.Instant

        var cpuMilliseconds: Double { cpuSeconds * 1000 / Double(max(1, total)) }
        func percentile(_ p: Double) -> Double { latencies.isEmpty ? .nan : latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
    }

    /// Sends ``rate`` × ``duration`` notifications with `request` (given each one's sequence number), waits up to 30 s
    /// for them to arrive, and measures their latency and the CPU `servers` used meanwhile.
    func deliver(
        ports: [Int], token: String, group: any EventLoopGroup, received: ReceiveLog, servers: [ServerProcess],
        request: @escaping @Sendable (PostClient, Int) async throws -> Void
    ) async throws -> Delivery {
        let total = rate * duration
        let cpuBefore = servers.map { $0.cpuSeconds() }.reduce(0, +)
        let machineBefore = MachineTimes.now()
        let sent = SendLog(capacity: total)
        let start = ContinuousClock.now
        try await paced(total: total, ports: ports, token: token, group: group) { client, sequence in
            sent.record(sequence)
            try await request(client, sequence)
        }
        let createSeconds = (ContinuousClock.now - start).seconds
        let ioWaitPercent = MachineTimes.now().ioWaitPercent(since: machineBefore)
        let drainDeadline = ContinuousClock.now.advanced(by: .seconds(30))
        while received.count < total, ContinuousClock.now < drainDeadline { try await Task.sleep(for: .milliseconds(100)) }
        let deliverSeconds = (received.lastArrival.map { ($0 - start).seconds }) ?? createSeconds
        let cpuSeconds = servers.map { $0.cpuSeconds() }.reduce(0, +) - cpuBefore
        // Each notification's send time and latency, read once for the percentiles and the log.
        let samples = (0..<total).map { sequence -> (sentAt: ContinuousClock.Instant?, milliseconds: Double?) in
            let sentAt = sent.time(of: sequence)
            guard let sentAt, let arrival = received.arrival(of: sequence) else { return (sentAt, nil) }
            return (sentAt, (arrival - sentAt).seconds * 1000)
        }
        if let latencyLog { try writeLatencyLog(to: latencyLog, samples: samples, start: start) }
        return Delivery(
            total: total, createSeconds: createSeconds, deliverSeconds: deliverSeconds, cpuSeconds: cpuSeconds,
            ioWaitPercent: ioWaitPercent, latencies: samples.compactMap(\.milliseconds).sorted(), samples: samples, start: start)
    }

    /// The lines every target's report shares: streams held, delivered, latency and memory.
    /// Opens `subscribers` streams with `open` (given each stream's index) and waits until every one has connected;
    /// answers the streams, how long connecting took, and the servers' resident memory before and with them.
    func connectStreams(
        servers: [ServerProcess], received: ReceiveLog, open: (Int) async throws -> any Channel
    ) async throws -> (channels: [any Channel], connectSeconds: Double, rssBefore: Int, rssAfter: Int) {
        try await Task.sleep(for: .seconds(1))
        let rssBefore = servers.map { $0.residentKiB() }.reduce(0, +)
        print("Connecting \(subscribers) event streams…")
        var channels: [any Channel] = []
        let connectStart = ContinuousClock.now
        for index in 0..<subscribers {
            channels.append(try await open(index))
            if index % 1000 == 999 { print("  \(index + 1) connected") }
        }
        while received.connectedCount < subscribers { try await Task.sleep(for: .milliseconds(50)) }
        let connectSeconds = (ContinuousClock.now - connectStart).seconds
        try await Task.sleep(for: .seconds(2))
        return (channels, connectSeconds, rssBefore, servers.map { $0.residentKiB() }.reduce(0, +))
    }

    func printDelivery(_ run: Delivery, received: ReceiveLog, connectSeconds: Double, rssBefore: Int, rssAfter: Int) {
        print("  subscribers held:          \(received.connectedCount) of \(subscribers) (connected in \(format(connectSeconds)) s)")
        print(
            "  notifications created:     \(run.total) at a target of \(rate)/s over \(format(run.createSeconds)) s (achieved \(format(Double(run.total) / run.createSeconds))/s)"
        )
        print("  notifications delivered:   \(run.latencies.count) of \(run.total), duplicates: \(received.duplicates)")
        print("  delivery throughput:       \(format(Double(run.latencies.count) / run.deliverSeconds)) events/s")
        print(
            "  create→delivered latency:  p50 \(format(run.percentile(0.5))) ms, p99 \(format(run.percentile(0.99))) ms, max \(format(run.latencies.last ?? .nan)) ms"
        )
        print("  server memory (RSS):       \(rssBefore / 1024) MiB before, \(rssAfter / 1024) MiB with \(subscribers) idle streams")
        print("  memory per idle stream:    \(format(Double(rssAfter - rssBefore) / Double(max(1, subscribers)))) KiB")
    }

    /// The run's figures as JSON in ``summary``, when asked for.
    func writeSummary(target: String, run: Delivery, rssBefore: Int, rssAfter: Int) throws {
        guard let summary else { return }
        let figures: [String: Any] = [
            "target": target, "subscribers": subscribers, "rate": rate, "total": run.total, "delivered": run.latencies.count,
            "p50Ms": run.percentile(0.5), "p99Ms": run.percentile(0.99), "cpuMsPerNotification": run.cpuMilliseconds,
            "kibPerStream": Double(rssAfter - rssBefore) / Double(max(1, subscribers)), "load": loadAverage(),
            "ioWaitPercent": run.ioWaitPercent,
        ]
        try JSONSerialization.data(withJSONObject: figures, options: [.sortedKeys]).write(to: URL(fileURLWithPath: summary))
    }

    func format(_ value: Double) -> String { String(format: "%.1f", value) }

    /// Writes `sequence,sent_ms,latency_ms` for every notification (latency empty when it never arrived), so the slow
    /// ones can be placed in time: whether they come in clusters, and how often.
    func writeLatencyLog(
        to path: String, samples: [(sentAt: ContinuousClock.Instant?, milliseconds: Double?)],
        start: ContinuousClock.Instant
    ) throws {
        var lines = ["sequence,sent_ms,latency_ms"]
        for (sequence, sample) in samples.enumerated() {
            guard let sentAt = sample.sentAt else { continue }
            let latency = sample.milliseconds.map { String(format: "%.3f", $0) } ?? ""
            lines.append("\(sequence),\(String(format: "%.3f", (sentAt - start).seconds * 1000)),\(latency)")
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
    }

    /// How long single writes take, one after another, alone and while notifications to every stream at once are
    /// committed and fanned out: whether a fan-out holds up the writes that follow it.
    func timeWritesDuringFanouts(port: Int, seeded: Seeded, group: any EventLoopGroup) async throws -> FanoutTiming {
        let recipients = Array(seeded.mentorIDs.prefix(Limits.maxRecipients))
        let probe = try await PostClient.connect(group: group, port: port, token: seeded.coordinatorToken)
        let sender = try await PostClient.connect(group: group, port: port, token: seeded.coordinatorToken)
        defer {
            probe.channel.close(promise: nil)
            sender.channel.close(promise: nil)
        }
        // Each single write to another mentor, outside the fan-out's when there are more: no mentor's unread count
        // grows with the probes.
        let targets = seeded.mentorIDs.count > recipients.count ? Array(seeded.mentorIDs.dropFirst(recipients.count)) : seeded.mentorIDs
        let counter = Counter()
        /// Writes one after another until `until` passes; returns each write's milliseconds.
        func probeWrites(until end: ContinuousClock.Instant) async throws -> [Double] {
            var times: [Double] = []
            while ContinuousClock.now < end {
                let recipient = targets[counter.next() % targets.count]
                let start = ContinuousClock.now
                try await probe.post(json: #"{"recipients":[\#(recipient)],"kind":"scenarioPrompt","title":"probe","body":"b"}"#)
                times.append((ContinuousClock.now - start).seconds * 1000)
            }
            return times
        }
        let alone = try await probeWrites(until: .now.advanced(by: .seconds(2)))
        var during: [Double] = []
        var longestWaits: [Double] = []
        var fanoutWrites: [Double] = []
        let list = recipients.map(String.init).joined(separator: ",")
        for round in 0..<fanouts {
            let fanoutBody = #"{"recipients":[\#(list)],"kind":"scenarioPrompt","title":"fanout-\#(round)","body":"b"}"#
            async let probed = probeWrites(until: .now.advanced(by: .milliseconds(1500)))
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            try await sender.post(json: fanoutBody)
            fanoutWrites.append((ContinuousClock.now - start).seconds * 1000)
            let round = try await probed
            during += round
            longestWaits.append(round.max() ?? .nan)
            try await Task.sleep(for: .milliseconds(500))
        }
        return FanoutTiming(
            recipients: recipients.count, alone: .init(alone), during: .init(during), longestWaits: longestWaits,
            fanoutWrites: fanoutWrites)
    }

    /// The SQLite server's arguments beyond its database.
    var sqliteArguments: [String] {
        ["--durability", durability] + (commitInterval.map { ["--commit-interval", String($0)] } ?? [])
    }

    /// The CPU a floor server, started for the purpose, spends per `GET /healthz` at ``rate`` per second.
    func floorCPU(of floor: FloorServer, total: Int, group: any EventLoopGroup) async throws -> Double {
        let server = try ServerProcess(executable: CommandLine.arguments[0], arguments: ["--serve-floor", floor.rawValue])
        // Killed, not interrupted: it keeps nothing, and a shell's background job may ignore SIGINT.
        defer { server.stop(signal: SIGKILL) }
        let port = try server.waitForPort()
        try await Task.sleep(for: .seconds(1))
        let before = server.cpuSeconds()
        try await paced(total: total, ports: [port], token: "", group: group) { client, _ in try await client.getHealth() }
        return (server.cpuSeconds() - before) * 1000 / Double(max(1, total))
    }

    /// Sends `total` requests at ``rate`` per second, spread over ``creators`` connections (on `ports` in turn):
    /// request `sequence` is due `sequence / rate` seconds after the start.
    func paced(
        total: Int, ports: [Int], token: String, group: any EventLoopGroup,
        request: @escaping @Sendable (PostClient, Int) async throws -> Void
    ) async throws {
        let (rate, creators) = (rate, creators)
        // Every creator's connection is open before the clock starts: the steady rate, not 32 connections at once.
        var clients: [PostClient] = []
        for creator in 0..<creators {
            clients.append(try await PostClient.connect(group: group, port: ports[creator % ports.count], token: token))
        }
        let start = ContinuousClock.now
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            for (creator, client) in clients.enumerated() {
                tasks.addTask {
                    var sequence = creator
                    while sequence < total {
                        let due = start.advanced(by: .seconds(Double(sequence) / Double(rate)))
                        if due > .now { try await Task.sleep(until: due, clock: .continuous) }
                        try await request(client, sequence)
                        sequence += creators
                    }
                    try await client.close()
                }
            }
            try await tasks.waitForAll()
        }
    }

    struct Seeded: Sendable {
        var mentorIDs: [UserID]
        var mentorTokens: [String]
        var coordinatorToken: String
    }

    /// Users and sessions written straight into the store (no bcrypt: the benchmark measures streaming).
    func seed(database: String) async throws -> Seeded {
        let store: any VarselRepository =
            postgres != nil
            ? try await PostgresRepository(url: database, logger: .init(label: "bench"))
            : try SQLiteRepository(path: database)
        let now = Date()
        func session(for user: User) async throws -> String {
            let token = Tokens.random()
            try await store.createSession(
                Session(
                    tokenHash: Tokens.hash(token), userID: user.id, csrfToken: "x", createdAt: now,
                    expiresAt: now.addingTimeInterval(86400)))
            return token
        }
        let coordinator = try await store.createUser(
            NewUser(username: "bench-coordinator", displayName: "C", role: .coordinator, passwordHash: "x", language: .english), at: now)
        var ids: [UserID] = []
        var tokens: [String] = []
        for index in 0..<subscribers {
            let mentor = try await store.createUser(
                NewUser(username: "mentor-\(index)", displayName: "M", role: .mentor, passwordHash: "x", language: .english), at: now)
            ids.append(mentor.id)
            tokens.append(try await session(for: mentor))
        }
        if history > 0 {
            print("Writing \(history) read notifications for each of \(subscribers) mentors…")
            let old = NewNotification(
                recipientID: 0, senderID: coordinator.id, kind: .scenarioPrompt, title: "history", body: "b",
                urgency: .normal, deepLink: Validation.deepLink(for: .scenarioPrompt), personalDetails: [])
            for round in 0..<history {
                for chunk in stride(from: 0, to: ids.count, by: 1000) {
                    let news = ids[chunk..<min(ids.count, chunk + 1000)].map { id in
                        var new = old
                        new.recipientID = id
                        return new
                    }
                    _ = try await store.createNotifications(news, idempotencyKey: nil, at: now)
                }
                if round % 100 == 99 { print("  \(round + 1) each") }
            }
            for id in ids { _ = try await store.markAllRead(userID: id, at: now) }
        }
        return Seeded(mentorIDs: ids, mentorTokens: tokens, coordinatorToken: try await session(for: coordinator))
    }

    /// The other headers Chromium sends when a page opens its event stream (about 600 bytes with the request line):
    /// the server keeps a read buffer per connection sized by what it read, so a bare request would flatter it.
    static let browserHeaders = [
        "Connection: keep-alive", "Cache-Control: no-cache", "Accept: text/event-stream",
        "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/142.0.0.0 Safari/537.36",
        "sec-ch-ua: \"Chromium\";v=\"142\", \"Not_A Brand\";v=\"99\"", "sec-ch-ua-mobile: ?0", "sec-ch-ua-platform: \"Linux\"",
        "Sec-Fetch-Site: same-origin", "Sec-Fetch-Mode: cors", "Sec-Fetch-Dest: empty", "Referer: http://127.0.0.1/notifications",
        "Accept-Encoding: gzip, deflate, br, zstd", "Accept-Language: nb-NO,nb;q=0.9,no;q=0.8,en;q=0.7",
    ].map { $0 + "\r\n" }.joined()

    func openStream(group: any EventLoopGroup, port: Int, token: String, log: ReceiveLog) async throws -> any Channel {
        let request =
            "GET /api/v1/events\(players ? "?player=web" : "") HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\n\(Self.browserHeaders)\r\n"
        return try await openStream(group: group, port: port, request: request, format: .varsel, log: log)
    }

    /// Connects to `port`, sends the raw `request`, and notes each arrival in the stream that answers.
    func openStream(group: any EventLoopGroup, port: Int, request: String, format: StreamHandler.Format, log: ReceiveLog) async throws
        -> any Channel
    {
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(StreamHandler(log: log, format: format)) }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: request)).get()
        return channel
    }
}

/// Counts up from 0, from any task.
final class Counter: Sendable {
    private let value = Mutex(0)
    func next() -> Int {
        value.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}

/// Single-write times alone and during fan-outs.
struct FanoutTiming {
    struct Summary {
        var count: Int
        var p50: Double
        var max: Double

        init(_ milliseconds: [Double]) {
            let sorted = milliseconds.sorted()
            count = sorted.count
            p50 = sorted.isEmpty ? .nan : sorted[sorted.count / 2]
            max = sorted.last ?? .nan
        }
    }

    var recipients: Int
    var alone: Summary
    var during: Summary
    /// The longest single write in each fan-out's window.
    var longestWaits: [Double]
    /// How long each fan-out's own request took, committed.
    var fanoutWrites: [Double]
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// When each benchmark notification arrived, and how many streams are connected.
final class ReceiveLog: Sendable {
    private struct State {
        var arrivals: [Int: ContinuousClock.Instant] = [:]
        var duplicates = 0
        var connected = 0
        var last: ContinuousClock.Instant?
    }
    private let state = Mutex(State())

    func connected() { state.withLock { $0.connected += 1 } }
    var connectedCount: Int { state.withLock { $0.connected } }
    var count: Int { state.withLock { $0.arrivals.count } }
    var duplicates: Int { state.withLock { $0.duplicates } }
    var lastArrival: ContinuousClock.Instant? { state.withLock { $0.last } }
    func arrival(of sequence: Int) -> ContinuousClock.Instant? { state.withLock { $0.arrivals[sequence] } }

    func arrived(_ sequence: Int, at instant: ContinuousClock.Instant) {
        state.withLock { state in
            if state.arrivals[sequence] != nil { state.duplicates += 1 } else { state.arrivals[sequence] = instant }
            state.last = instant
        }
    }
}

/// When each benchmark notification was sent.
final class SendLog: Sendable {
    private let times: Mutex<[ContinuousClock.Instant?]>
    init(capacity: Int) { times = Mutex(Array(repeating: nil, count: capacity)) }
    func record(_ sequence: Int) {
        let now = ContinuousClock.now
        times.withLock { $0[sequence] = now }
    }
    func time(of sequence: Int) -> ContinuousClock.Instant? { times.withLock { $0[sequence] } }
}

/// Reads an event stream's raw bytes and notes each `bench-N` as it arrives.
final class StreamHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    /// Whose stream it reads.
    enum Format {
        /// Varsel's: `: connected` once open; a notification is its `notification.created` event, titled `bench-N`.
        case varsel
        /// nchan's: `: hi` once open; a message is a frame whose data is `bench-N`.
        case nchan
    }

    let log: ReceiveLog
    let format: Format
    var pending = ""
    var isConnected = false

    init(log: ReceiveLog, format: Format = .varsel) {
        self.log = log
        self.format = format
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let now = ContinuousClock.now
        var buffer = unwrapInboundIn(data)
        pending += buffer.readString(length: buffer.readableBytes) ?? ""
        if !isConnected, pending.contains(format == .varsel ? ": connected" : ": hi") {
            isConnected = true
            log.connected()
        }
        // Whole frames only; a notification counts once, by its `notification.created` event (a web page's stream
        // also names its title in the arrival's cue).
        while let end = pending.range(of: "\n\n") {
            let frame = pending[..<end.lowerBound]
            if let sequence = sequence(in: frame) { log.arrived(sequence, at: now) }
            pending = String(pending[end.upperBound...])
        }
    }

    /// The `N` of the `bench-N` that `frame` delivers, if it delivers one.
    func sequence(in frame: Substring) -> Int? {
        let marker: Range<Substring.Index>?
        switch format {
        case .varsel: marker = frame.contains("\nevent: notification.created\n") ? frame.range(of: "\"title\":\"bench-") : nil
        case .nchan: marker = frame.range(of: "\ndata: bench-")
        }
        guard let marker else { return nil }
        return Int(frame[marker.upperBound...].prefix { $0.isNumber })
    }
}

/// One keep-alive HTTP/1.1 connection that POSTs notifications one after another.
final class PostClient: Sendable {
    let channel: any Channel
    let handler: ResponseWaiter
    let token: String

    init(channel: any Channel, handler: ResponseWaiter, token: String) {
        self.channel = channel
        self.handler = handler
        self.token = token
    }

    static func connect(group: any EventLoopGroup, port: Int, token: String) async throws -> PostClient {
        let handler = ResponseWaiter()
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    try channel.pipeline.syncOperations.addHandler(handler)
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        return PostClient(channel: channel, handler: handler, token: token)
    }

    /// Creates a notification: `POST /api/v1/notifications` with `json`, answered `201 Created`.
    func post(json: String) async throws {
        try await post(path: "/api/v1/notifications", body: json, contentType: "application/json", accepting: [.created])
    }

    /// POSTs `body` to `path`, with the bearer token when there is one; throws unless the answer is one of `accepting`.
    func post(path: String, body text: String, contentType: String, accepting: Set<HTTPResponseStatus>) async throws {
        let body = ByteBuffer(string: text)
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: path)
        head.headers.add(name: "Host", value: "127.0.0.1")
        if !token.isEmpty { head.headers.add(name: "Authorization", value: "Bearer \(token)") }
        head.headers.add(name: "Content-Type", value: contentType)
        head.headers.add(name: "Content-Length", value: String(body.readableBytes))
        let promise = channel.eventLoop.makePromise(of: HTTPResponseStatus.self)
        handler.expect(promise)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.write(HTTPClientRequestPart.body(.byteBuffer(body)), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let status = try await promise.futureResult.get()
        guard accepting.contains(status) else { throw BenchmarkError.unexpectedStatus(Int(status.code)) }
    }

    /// `GET /healthz`, the cheapest request: for the HTTP layer's own cost.
    func getHealth() async throws {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/healthz")
        head.headers.add(name: "Host", value: "127.0.0.1")
        let promise = channel.eventLoop.makePromise(of: HTTPResponseStatus.self)
        handler.expect(promise)
        channel.write(HTTPClientRequestPart.head(head), promise: nil)
        channel.writeAndFlush(HTTPClientRequestPart.end(nil), promise: nil)
        let status = try await promise.futureResult.get()
        guard status == .ok else { throw BenchmarkError.unexpectedStatus(Int(status.code)) }
    }

    func close() async throws { try await channel.close() }
}

/// Whether this is a debug build, whose figures are not comparable with a release build's.
#if DEBUG
    let isDebugBuild = true
#else
    let isDebugBuild = false
#endif

enum BenchmarkError: Error {
    case unexpectedStatus(Int)
    case serverDidNotStart
}

/// Completes the waiting promise with each response's status.
final class ResponseWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    private let waiting = Mutex<[EventLoopPromise<HTTPResponseStatus>]>([])
    private var status: HTTPResponseStatus = .ok

    func expect(_ promise: EventLoopPromise<HTTPResponseStatus>) { waiting.withLock { $0.append(promise) } }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case let .head(head): status = head.status
        case .body: break
        case .end:
            let promise = waiting.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            promise?.succeed(status)
        }
    }
}

/// The server under test, as a child process.
final class ServerProcess: @unchecked Sendable {
    let process = Process()
    let output = Pipe()

    /// `varsel serve` on a free port and `database`.
    convenience init(executable: String, database: String, extraArguments: [String] = []) throws {
        try self.init(executable: executable, arguments: ["serve", "--port", "0", "--database", database] + extraArguments)
    }

    /// Any server that prints `listening on http://127.0.0.1:PORT` once it listens; `quiet`, one whose output is
    /// not read (nothing then waits for the port line).
    init(executable: String, arguments: [String], quiet: Bool = false) throws {
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = quiet ? FileHandle.nullDevice : output
        process.standardError = FileHandle.nullDevice
        try process.run()
    }

    func waitForPort() throws -> Int {
        var text = ""
        let handle = output.fileHandleForReading
        while !text.contains("\n") || !text.contains("listening on") {
            let data = handle.availableData
            if data.isEmpty { throw BenchmarkError.serverDidNotStart }
            text += String(decoding: data, as: UTF8.self)
        }
        guard let range = text.range(of: #"listening on http://[0-9.]+:(\d+)"#, options: .regularExpression),
            let port = Int(text[range].split(separator: ":").last ?? "")
        else { throw BenchmarkError.serverDidNotStart }
        return port
    }

    /// The CPU time the server has used (user + system), in seconds, from /proc.
    func cpuSeconds() -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return 0 }
        // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The server's resident memory in KiB, from /proc.
    func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Stops the server with `signal` (by default SIGINT, on which `varsel serve` shuts down gracefully) and waits.
    func stop(signal: Int32 = SIGINT) {
        if process.isRunning {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
        }
    }
}

/// The machine's 1-minute load average, to judge how quiet the run was.
func loadAverage() -> String {
    (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first.map(String.init) ?? "?"
}

/// The machine's CPU time so far by kind, from `/proc/stat`: how much of it waited for the disk.
struct MachineTimes {
    var ioWait: Double
    var total: Double

    static func now() -> MachineTimes {
        // The first line: "cpu  user nice system idle iowait irq softirq steal …", in clock ticks.
        let line = (try? String(contentsOfFile: "/proc/stat", encoding: .utf8))?.split(separator: "\n").first ?? ""
        let ticks = line.split(separator: " ").dropFirst().prefix(8).compactMap { Double($0) }
        guard ticks.count == 8 else { return MachineTimes(ioWait: 0, total: 0) }
        return MachineTimes(ioWait: ticks[4], total: ticks.reduce(0, +))
    }

    /// The share of the CPU time between `earlier` and this that waited for the disk, in percent (0 where unknown).
    func ioWaitPercent(since earlier: MachineTimes) -> Double {
        let total = self.total - earlier.total
        return total > 0 ? (ioWait - earlier.ioWait) * 100 / total : 0
    }
}

/// Raises this process's open-file limit (and so the server's, which inherits it) to the hard limit.
func raiseOpenFileLimit() {
    var limit = rlimit()
    if getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 {
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

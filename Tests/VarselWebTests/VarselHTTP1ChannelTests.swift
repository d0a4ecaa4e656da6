import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOEmbedded
import Testing
import VarselService

@testable import VarselLive
@testable import VarselWeb

/// Varsel's HTTP/1 channel mirrors Hummingbird's request loop for one release; these tests hold it to that release and
/// to what it relies on in Hummingbird's pipeline.
@Suite("Varsel's HTTP/1 channel")
struct VarselHTTP1ChannelTests {
    /// The repository's root, where `Package.resolved` lies.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test(
        "the Hummingbird release resolved is the one the channel's request loop mirrors (on an upgrade: re-read HTTPChannelHandler.swift, then move the version)"
    )
    func resolvedHummingbirdIsTheMirroredOne() throws {
        struct Resolved: Decodable {
            struct Pin: Decodable {
                struct State: Decodable { var version: String? }
                var identity: String
                var state: State
            }
            var pins: [Pin]
        }
        let data = try Data(contentsOf: Self.root.appendingPathComponent("Package.resolved"))
        let pin = try #require(try JSONDecoder().decode(Resolved.self, from: data).pins.first { $0.identity == "hummingbird" })
        #expect(pin.state.version == VarselHTTP1Channel.mirroredHummingbirdVersion)
    }

    @Test(
        "the pipeline it relies on: Hummingbird's codec, then the stream handoff, then Hummingbird's connection state handler (which a takeover removes)"
    )
    func pipelineShape() async throws {
        let channel = NIOAsyncTestingChannel()
        let setUp = VarselHTTP1Channel(responder: { _, _, _ in }, configuration: .init())
        _ = try await channel.testingEventLoop.flatSubmit { setUp.setup(channel: channel, logger: Logger(label: "test")) }.get()
        let names = try await channel.testingEventLoop.submit {
            _ = try channel.pipeline.syncOperations.handler(type: StreamHandoffHandler.self)
            let handoff = try channel.pipeline.syncOperations.context(handlerType: StreamHandoffHandler.self)
            let state = try channel.pipeline.syncOperations.context(handlerType: HTTPConnectionStateHandler.self)
            return (handoff.name, state.name)
        }.get()
        let description = channel.testingEventLoop.submit { String(describing: channel.pipeline) }
        let order = try await description.get()
        let handoffAt = try #require(order.range(of: names.0))
        let stateAt = try #require(order.range(of: names.1))
        #expect(handoffAt.lowerBound < stateAt.lowerBound, "the handoff sees the response before Hummingbird's state handler")
        _ = try? await channel.finish()
    }

    @Test(
        "a body too large is refused whole (413) and the connection serves the next request; a body within the limit reaches the handler",
        .timeLimit(.minutes(1)))
    func bodiesAreReadBeforeTheResponder() async throws {
        let world = try await TestWorld()
        let app = Application(
            router: try await VarselRouter.build(services: world.services), server: .varselHTTP1(),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            let token = try await client.token("coord")
            let huge = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"\#(String(repeating: "x", count: 200_000))"}"#
            try await client.call(.post, "/api/v1/notifications", token: token, json: huge).expectProblem(.contentTooLarge)
            let fits = #"{"recipients":["kari"],"kind":"scenarioPrompt","title":"t","body":"\#(String(repeating: "y", count: 3_000))"}"#
            #expect(try await client.call(.post, "/api/v1/notifications", token: token, json: fits).status == .created)
            let stored = try await world.repository.notifications(for: world.kari.id, filter: .all, after: nil, limit: 10).items
            #expect(stored.map(\.body) == [String(repeating: "y", count: 3_000)])
        }
    }
}

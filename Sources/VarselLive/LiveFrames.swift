import Foundation
import NIOCore
import VarselCore
import VarselService
import VarselStore

/// The frames of a live event stream (Server-Sent Events): a logged event with its id, an announcement or a cue
/// without one, a reset; the one place their bytes are decided.
enum LiveFrames {
    /// Event-stream framing.
    ///
    /// The builders that encode JSON are never inlined into the stream's body: an async function keeps every
    /// local of everything inlined into it in its task's frame for the stream's whole life, and the encoders'
    /// working state made that frame 23 KiB per idle stream. Called, they use the thread's stack and give it back.
    struct Frame {
        static func event(id: Int64, name: String, json: Data) -> ByteBuffer {
            var buffer = ByteBuffer()
            writeEvent(id: id, name: name, into: &buffer) { $0.writeBytes(json) }
            return buffer
        }

        /// Appends an event with an id to `buffer`; `data` appends its JSON, which has no raw newlines (the encoders
        /// escape them), so one data line suffices.
        static func writeEvent(id: Int64, name: String, into buffer: inout ByteBuffer, data: (inout ByteBuffer) -> Void) {
            buffer.writeString("id: \(id)\nevent: \(name)\ndata: ")
            data(&buffer)
            buffer.writeString("\n\n")
        }

        /// Appends an event without an id (an announcement, a cue) to `buffer`: the client's resume point stays on the
        /// last logged event. `data` appends its JSON, one line.
        static func writeUnlogged(name: String, into buffer: inout ByteBuffer, data: (inout ByteBuffer) -> Void) {
            buffer.writeString("event: \(name)\ndata: ")
            data(&buffer)
            buffer.writeString("\n\n")
        }

        /// Appends the `cue` for one arrival to `buffer`: what the browser plays, as the core plans it.
        @inline(never)
        static func writeCue(for item: NotificationItem, announcer: Announcer, into buffer: inout ByteBuffer) {
            let cue = CuePayload(item, announcer: announcer)
            writeUnlogged(name: "cue", into: &buffer) { HotJSON.cue(cue, into: &$0) }
        }

        /// Appends an `announcement` for the page's live region to `buffer`.
        @inline(never)
        static func writeAnnouncement(_ announcement: Announcement, into buffer: inout ByteBuffer) {
            let resource = AnnouncementResource(text: announcement.text, politeness: announcement.politeness)
            writeUnlogged(name: "announcement", into: &buffer) { HotJSON.announcement(resource, into: &$0) }
        }

        /// A `reset`: the client must reload its list (`reason`), resuming after `lastEventId`.
        @inline(never)
        static func reset(reason: String, lastEventId: Int64) throws -> ByteBuffer {
            event(id: lastEventId, name: "reset", json: try WireJSON.encoder.encode(ResetPayload(reason: reason, lastEventId: lastEventId)))
        }
    }

    /// Unread-count events as JSON, shared by every stream.
    static let unreadCounts = UnreadCountJSON()

    /// A `notification.created` event's data, as ``HotJSON/notificationEvent(_:)`` writes it; its encoding is the
    /// reference in tests.
    struct CreatedPayload: Encodable { var notification: NotificationResource }
    struct DeletedPayload: Encodable { var id: NotificationID }
    struct ResetPayload: Encodable {
        var reason: String
        var lastEventId: Int64
    }

    /// How the browser should make one arrival perceived, as the core's ``CuePlan`` decides it. The browser adds
    /// only what it alone knows: a system notification is shown only while the page is hidden. ``HotJSON/cue(_:into:)``
    /// writes it; its encoding is the reference in tests.
    struct CuePayload: Encodable {
        var notificationId: NotificationID
        var earcon: CuePlan.Earcon?
        /// The earcon as the browser plays it: tones in hertz, each `toneMs` long, `spacingMs` apart.
        var tones: [Int]?
        var toneMs: Int?
        var spacingMs: Int?
        /// The `navigator.vibrate` pattern in milliseconds.
        var vibration: [Int]?
        var systemNotification: SystemNotice?

        struct SystemNotice: Encodable {
            var title: String
            var body: String
            var tag: String
            var lang: String
        }

        init(_ item: NotificationItem, announcer: Announcer) {
            let plan = CuePlan(for: item, preferences: announcer.preferences, isAppInForeground: false)
            notificationId = item.id
            earcon = plan.earcon
            tones = plan.earcon?.tones
            toneMs = plan.earcon.map { _ in CuePlan.Earcon.toneMilliseconds }
            spacingMs = plan.earcon.map { _ in CuePlan.Earcon.toneSpacingMilliseconds }
            vibration = plan.haptic?.pattern
            // What a Web Push shows for it, with the same tag, so a hidden page and a push never show it twice; no
            // personal details unless the mentor allowed them on the lock screen.
            systemNotification = announcer.describer.lockScreenNotification(for: item, preferences: announcer.preferences).map {
                SystemNotice(title: $0.title, body: $0.body, tag: $0.tag, lang: $0.language)
            }
        }
    }

    /// Appends the frame for one stored event to `buffer`; never inlined, like ``Frame``'s encoding builders. A
    /// notification's JSON is written straight into the buffer (``HotJSON``).
    @inline(never)
    static func writeFrame(
        for event: StoredEvent, describer: Describer, preferences: NotificationPreferences, live: Bool,
        services: LiveStreamServices, into buffer: inout ByteBuffer
    ) throws {
        let json: Data
        switch event.payload {
        case let .notificationCreated(item), let .notificationUpdated(item):
            let now = services.now()
            let resource = NotificationResource(item, describer: describer, preferences: preferences, now: now)
            Frame.writeEvent(id: event.id, name: event.type.rawValue, into: &buffer) { HotJSON.notificationEvent(resource, into: &$0) }
            if live, event.type == .notificationCreated {
                services.metrics.eventDelivered(latency: max(0, now.timeIntervalSince(item.createdAt)))
            } else {
                services.metrics.eventDelivered(latency: nil)
            }
            return
        case let .notificationDeleted(id):
            json = try WireJSON.encoder.encode(DeletedPayload(id: id))
            services.metrics.eventDelivered(latency: nil)
        case let .unreadCount(count):
            json = try Self.unreadCounts.json(count: count, describer: describer)
            services.metrics.eventDelivered(latency: nil)
        case .accountDeactivated:
            // The broker ends the streams instead of sending it; a replay that meets it says so and nothing more.
            json = Data("{}".utf8)
        }
        Frame.writeEvent(id: event.id, name: event.type.rawValue, into: &buffer) { $0.writeBytes(json) }
    }
}

import Foundation
import NIOCore
import VarselCore
import VarselStore

#if canImport(Glibc)
    import Glibc
#endif

/// JSON for the payloads written once per notification, by hand: the live stream's `notification.created` event,
/// the answer to the create request, and, on a web page's stream, the arrival's cue and announcement.
///
/// Foundation's `JSONEncoder` was the largest single cost left on the path of a notification (about 10 % of the
/// server's CPU at 1,000 notifications a second, and 6 % more on a web page's stream for its cue and announcement): it
/// builds a tree of boxed values for every payload. These writers append the same bytes directly. They must write
/// exactly what ``JSONCoding/encoder`` writes (sorted keys, ISO 8601 dates in whole seconds, no escaped slashes, nil
/// left out); a test holds them to it, byte for byte, over many notifications. Every other payload still goes through
/// the encoder. They write straight into the buffer that is sent: the stream's next write, the response's body.
public enum HotJSON {
    /// Appends `{"notification":{…}}`, the data of a `notification.created` or `notification.updated` event, to `buffer`.
    public static func notificationEvent(_ resource: NotificationResource, into buffer: inout ByteBuffer) {
        var json = Writer(appendingTo: &buffer)
        defer { json.give(back: &buffer) }
        json.object { json in
            json.key("notification")
            json.notification(resource)
        }
    }

    /// `{"items":[…]}`, the answer to `POST /api/v1/notifications`.
    public static func createResponse(_ items: [CreatedNotification]) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(128 + items.count * 160)
        var json = Writer(appendingTo: &buffer)
        json.object { json in
            json.key("items")
            json.array(items) { json, item in
                // Sorted: createdAt, id, kind, recipientId, title, urgency.
                json.object { json in
                    json.field("createdAt", date: item.createdAt)
                    json.field("id", item.id)
                    json.field("kind", item.kind.rawValue)
                    json.field("recipientId", item.recipientId)
                    json.field("title", item.title)
                    json.field("urgency", item.urgency.rawValue)
                }
            }
        }
        json.give(back: &buffer)
        return buffer
    }

    /// Appends an arrival's `cue` to `buffer`: `{"earcon":…,"notificationId":…,…}`.
    static func cue(_ cue: LiveFrames.CuePayload, into buffer: inout ByteBuffer) {
        var json = Writer(appendingTo: &buffer)
        defer { json.give(back: &buffer) }
        json.object { json in
            // Sorted: earcon, notificationId, spacingMs, systemNotification, toneMs, tones, vibration.
            json.field("earcon", ifPresent: cue.earcon?.rawValue)
            json.field("notificationId", cue.notificationId)
            json.field("spacingMs", ifPresent: cue.spacingMs)
            if let notice = cue.systemNotification {
                json.key("systemNotification")
                json.object { json in
                    json.field("body", notice.body)
                    json.field("lang", notice.lang)
                    json.field("tag", notice.tag)
                    json.field("title", notice.title)
                }
            }
            json.field("toneMs", ifPresent: cue.toneMs)
            json.field("tones", ifPresent: cue.tones)
            json.field("vibration", ifPresent: cue.vibration)
        }
    }

    /// Appends an `announcement` for the page's live region to `buffer`: `{"politeness":…,"text":…}`.
    static func announcement(_ announcement: AnnouncementResource, into buffer: inout ByteBuffer) {
        var json = Writer(appendingTo: &buffer)
        defer { json.give(back: &buffer) }
        json.object { json in
            json.field("politeness", announcement.politeness.rawValue)
            json.field("text", announcement.text)
        }
    }

    /// Appends JSON text to a byte buffer.
    struct Writer {
        /// The buffer written to, taken from the caller for the writing (so appending never copies it).
        private var bytes: ByteBuffer
        /// Whether the next member of the open object or array needs a comma before it.
        private var needsComma = false

        /// A writer that appends to `buffer`, which it holds until ``give(back:)``.
        init(appendingTo buffer: inout ByteBuffer) {
            bytes = ByteBuffer()
            swap(&bytes, &buffer)
        }

        /// Hands the buffer, written, back to `buffer`.
        mutating func give(back buffer: inout ByteBuffer) { swap(&bytes, &buffer) }

        mutating func object(_ members: (inout Writer) -> Void) {
            separate()
            bytes.writeInteger(UInt8(ascii: "{"))
            needsComma = false
            members(&self)
            bytes.writeInteger(UInt8(ascii: "}"))
            needsComma = true
        }

        mutating func array<Element>(_ elements: [Element], _ write: (inout Writer, Element) -> Void) {
            separate()
            bytes.writeInteger(UInt8(ascii: "["))
            needsComma = false
            for element in elements { write(&self, element) }
            bytes.writeInteger(UInt8(ascii: "]"))
            needsComma = true
        }

        /// A member's key; its value follows.
        mutating func key(_ name: String) {
            separate()
            string(name)
            bytes.writeInteger(UInt8(ascii: ":"))
            needsComma = false
        }

        mutating func field(_ name: String, _ value: String) {
            key(name)
            string(value)
            needsComma = true
        }

        /// A string member, left out when nil (as the encoder leaves out an optional).
        mutating func field(_ name: String, ifPresent value: String?) {
            if let value { field(name, value) }
        }

        mutating func field(_ name: String, _ value: Int64) {
            key(name)
            bytes.writeString(String(value))
            needsComma = true
        }

        /// A number member, left out when nil.
        mutating func field(_ name: String, ifPresent value: Int?) {
            if let value { field(name, Int64(value)) }
        }

        /// An array of numbers, left out when nil.
        mutating func field(_ name: String, ifPresent values: [Int]?) {
            guard let values else { return }
            key(name)
            bytes.writeInteger(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { bytes.writeInteger(UInt8(ascii: ",")) }
                bytes.writeString(String(value))
            }
            bytes.writeInteger(UInt8(ascii: "]"))
            needsComma = true
        }

        mutating func field(_ name: String, _ value: some StoredID) {
            field(name, value.rawValue)
        }

        mutating func field(_ name: String, _ value: Bool) {
            key(name)
            bytes.writeString(value ? "true" : "false")
            needsComma = true
        }

        /// A date as the encoder's `.iso8601` strategy writes it: `2026-11-23T17:22:32Z`, seconds rounded down.
        mutating func field(_ name: String, date: Date) {
            key(name)
            var seconds = time_t(floor(date.timeIntervalSince1970))
            var parts = tm()
            gmtime_r(&seconds, &parts)
            var text: [UInt8] = []
            text.reserveCapacity(22)
            func digits(_ value: Int32, _ count: Int) {
                var divisor: Int32 = 1
                for _ in 1..<count { divisor *= 10 }
                var value = value
                while divisor > 0 {
                    text.append(UInt8(ascii: "0") + UInt8(value / divisor))
                    value %= divisor
                    divisor /= 10
                }
            }
            text.append(UInt8(ascii: "\""))
            digits(parts.tm_year + 1900, 4)
            text.append(UInt8(ascii: "-"))
            digits(parts.tm_mon + 1, 2)
            text.append(UInt8(ascii: "-"))
            digits(parts.tm_mday, 2)
            text.append(UInt8(ascii: "T"))
            digits(parts.tm_hour, 2)
            text.append(UInt8(ascii: ":"))
            digits(parts.tm_min, 2)
            text.append(UInt8(ascii: ":"))
            digits(parts.tm_sec, 2)
            text.append(contentsOf: "Z\"".utf8)
            bytes.writeBytes(text)
            needsComma = true
        }

        mutating func field(_ name: String, ifPresent date: Date?) {
            if let date { field(name, date: date) }
        }

        /// A notification resource, its keys sorted at every level.
        mutating func notification(_ resource: NotificationResource) {
            object { json in
                json.key("accessibility")
                json.object { json in
                    let block = resource.accessibility
                    json.key("announcement")
                    json.object { json in
                        json.field("politeness", block.announcement.politeness.rawValue)
                        json.field("text", block.announcement.text)
                    }
                    json.field("kindName", block.kindName)
                    json.field("label", block.label)
                    json.field("readState", block.readState)
                    json.field("selectLabel", block.selectLabel)
                    json.field("timeAgo", block.timeAgo)
                    json.field("urgencyText", ifPresent: block.urgencyText)
                }
                json.field("body", resource.body)
                json.field("createdAt", date: resource.createdAt)
                json.key("deepLink")
                json.object { json in
                    json.field("focusElementId", resource.deepLink.focusElementId)
                    json.field("path", resource.deepLink.path)
                    json.field("screen", resource.deepLink.screen.rawValue)
                }
                json.field("id", resource.id)
                json.field("isUnread", resource.isUnread)
                json.field("kind", resource.kind.rawValue)
                json.field("readAt", ifPresent: resource.readAt)
                json.field("title", resource.title)
                json.field("urgency", resource.urgency.rawValue)
            }
        }

        private mutating func separate() {
            if needsComma { bytes.writeInteger(UInt8(ascii: ",")) }
        }

        /// A JSON string, its characters escaped as ``JSONStringEscaping`` says.
        private mutating func string(_ value: String) {
            bytes.writeInteger(UInt8(ascii: "\""))
            // Most strings need no escape: one copy.
            if JSONStringEscaping.needsEscaping(value) {
                bytes.writeBytes(JSONStringEscaping.escaped(value))
            } else {
                bytes.writeString(value)
            }
            bytes.writeInteger(UInt8(ascii: "\""))
        }
    }
}

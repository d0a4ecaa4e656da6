import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// JSON for the two payloads written once per notification, by hand: the live stream's `notification.created`
/// event and the answer to the create request.
///
/// Foundation's `JSONEncoder` was the largest single cost left on the path of a notification (about 10 % of the
/// server's CPU at 1,000 notifications a second): it builds a tree of boxed values for every payload. These writers
/// append the same bytes directly. They must write exactly what ``JSONCoding/encoder`` writes (sorted keys, ISO 8601
/// dates in whole seconds, no escaped slashes, nil left out); a test holds them to it, byte for byte, over many
/// notifications. Every other payload still goes through the encoder.
enum HotJSON {
    /// `{"notification":{…}}`, the data of a `notification.created` or `notification.updated` event.
    static func notificationEvent(_ resource: NotificationResource) -> Data {
        var json = Writer()
        json.object { json in
            json.key("notification")
            json.notification(resource)
        }
        return json.data
    }

    /// `{"items":[…]}`, the answer to `POST /api/v1/notifications`.
    static func createResponse(_ items: [NotificationsController.CreatedItem]) -> Data {
        var json = Writer()
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
        return json.data
    }

    /// Appends JSON text to a byte buffer.
    struct Writer {
        private(set) var bytes: [UInt8] = []
        /// Whether the next member of the open object or array needs a comma before it.
        private var needsComma = false

        init() { bytes.reserveCapacity(1024) }

        var data: Data { Data(bytes) }

        mutating func object(_ members: (inout Writer) -> Void) {
            separate()
            bytes.append(UInt8(ascii: "{"))
            needsComma = false
            members(&self)
            bytes.append(UInt8(ascii: "}"))
            needsComma = true
        }

        mutating func array<Element>(_ elements: [Element], _ write: (inout Writer, Element) -> Void) {
            separate()
            bytes.append(UInt8(ascii: "["))
            needsComma = false
            for element in elements { write(&self, element) }
            bytes.append(UInt8(ascii: "]"))
            needsComma = true
        }

        /// A member's key; its value follows.
        mutating func key(_ name: String) {
            separate()
            string(name)
            bytes.append(UInt8(ascii: ":"))
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
            bytes.append(contentsOf: String(value).utf8)
            needsComma = true
        }

        mutating func field(_ name: String, _ value: Bool) {
            key(name)
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
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
            bytes.append(contentsOf: text)
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
            if needsComma { bytes.append(UInt8(ascii: ",")) }
        }

        /// A JSON string: quotes, backslashes and control characters escaped as the encoder escapes them; slashes
        /// and everything else (all of Unicode) as they are.
        private mutating func string(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): bytes.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): bytes.append(contentsOf: #"\\"#.utf8)
                case 0x0A: bytes.append(contentsOf: #"\n"#.utf8)
                case 0x0D: bytes.append(contentsOf: #"\r"#.utf8)
                case 0x09: bytes.append(contentsOf: #"\t"#.utf8)
                case 0x08: bytes.append(contentsOf: #"\b"#.utf8)
                case 0x0C: bytes.append(contentsOf: #"\f"#.utf8)
                case 0..<0x20:
                    let hex = Array("0123456789abcdef".utf8)
                    bytes.append(contentsOf: #"\u00"#.utf8)
                    bytes.append(hex[Int(byte >> 4)])
                    bytes.append(hex[Int(byte & 0xF)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}

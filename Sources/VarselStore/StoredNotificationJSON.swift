import Foundation
import VarselCore

/// The JSON an event log stores for a notification, written by hand: what `JSONEncoder` writes for
/// ``NotificationItem``, without its cost.
///
/// Every `notification.created` event stores its notification as JSON, inside the transaction that creates it;
/// `JSONEncoder` builds a tree of boxed values for each one, and was about 4 % of the server's CPU at 1,000
/// notifications a second. The text is read back only by `JSONDecoder`, so it needs to decode to the same
/// notification, not to match the encoder's bytes (whose key order is not even fixed). It has the keys and shapes
/// the synthesized `Codable` conformances use: ids as numbers, dates as seconds since 2001 written to round-trip
/// exactly, a nil optional left out, and the deep link as its case's name holding its values. A test decodes what it
/// writes for many notifications and compares them whole.
public enum StoredNotificationJSON {
    /// The stored JSON of `item`; nil when a date cannot be written as JSON (not a finite number), for which
    /// `JSONEncoder` throws.
    public static func encode(_ item: NotificationItem) -> String? {
        guard item.createdAt.timeIntervalSinceReferenceDate.isFinite,
            item.readAt?.timeIntervalSinceReferenceDate.isFinite ?? true
        else { return nil }
        var json = Writer()
        json.bytes.reserveCapacity(192 + item.title.utf8.count + item.body.utf8.count)
        json.open("{")
        json.number("id", item.id.rawValue)
        json.number("recipientID", item.recipientID.rawValue)
        json.string("kind", item.kind.rawValue)
        json.string("title", item.title)
        json.string("body", item.body)
        json.number("createdAt", item.createdAt.timeIntervalSinceReferenceDate)
        if let readAt = item.readAt { json.number("readAt", readAt.timeIntervalSinceReferenceDate) }
        json.string("urgency", item.urgency.rawValue)
        json.key("deepLink")
        json.deepLink(item.deepLink)
        json.key("personalDetails")
        json.strings(item.personalDetails)
        json.close("}")
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The stored JSON of a deep link, as its column in the notification table holds it.
    public static func encode(_ target: DeepLinkTarget) -> String {
        var json = Writer()
        json.deepLink(target)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The stored JSON of a list of strings (a notification's personal details).
    public static func encode(_ strings: [String]) -> String {
        var json = Writer()
        json.strings(strings)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// The list of strings ``encode(_:)-([String])`` stored; none when the stored text opened empty (sealed under the key
    /// of a person whose erasure destroyed it).
    public static func strings(_ json: String, decoder: JSONDecoder) throws -> [String] {
        json.isEmpty ? [] : try decoder.decode([String].self, from: Data(json.utf8))
    }

    /// Appends JSON text to bytes.
    struct Writer {
        var bytes: [UInt8] = []
        /// Whether the next member of the open object or array needs a comma before it.
        private var needsComma = false

        mutating func open(_ bracket: Unicode.Scalar) {
            bytes.append(UInt8(ascii: bracket))
            needsComma = false
        }

        mutating func close(_ bracket: Unicode.Scalar) {
            bytes.append(UInt8(ascii: bracket))
            needsComma = true
        }

        mutating func separate() {
            if needsComma { bytes.append(UInt8(ascii: ",")) }
            needsComma = true
        }

        /// A member's key; its value follows.
        mutating func key(_ name: String) {
            separate()
            quoted(name)
            bytes.append(UInt8(ascii: ":"))
            needsComma = false
        }

        mutating func string(_ name: String, _ value: String) {
            key(name)
            quoted(value)
            needsComma = true
        }

        mutating func number(_ name: String, _ value: Int64) {
            key(name)
            bytes.append(contentsOf: String(value).utf8)
            needsComma = true
        }

        /// A finite number as the encoder writes it: the shortest text that reads back as the same bits, without
        /// a trailing `.0`.
        mutating func number(_ name: String, _ value: Double) {
            key(name)
            let text = value.description
            bytes.append(contentsOf: text.hasSuffix(".0") ? text.utf8.dropLast(2) : text.utf8.dropLast(0))
            needsComma = true
        }

        mutating func strings(_ strings: [String]) {
            open("[")
            for string in strings {
                separate()
                quoted(string)
            }
            close("]")
        }

        /// A member whose value is an object of the members `body` writes.
        mutating func object(_ name: String, _ body: (inout Writer) -> Void) {
            key(name)
            open("{")
            body(&self)
            close("}")
        }

        /// A number member, left out when nil (as the encoder leaves out an optional).
        mutating func number(_ name: String, ifPresent value: Int64?) {
            if let value { number(name, value) }
        }

        /// The deep link as the synthesized conformance writes an enum: `{"case":{labelled values}}`.
        mutating func deepLink(_ target: DeepLinkTarget) {
            open("{")
            switch target {
            case let .contact(contactID, assignmentID):
                object("contact") {
                    $0.number("contactID", contactID.rawValue)
                    $0.number("assignmentID", ifPresent: assignmentID?.rawValue)
                }
            case let .certification(certificationID):
                object("certification") { $0.number("certificationID", ifPresent: certificationID) }
            case .pause:
                object("pause") { _ in }
            case .notifications:
                object("notifications") { _ in }
            case let .webhooks(integrationID):
                object("webhooks") { $0.number("integrationID", integrationID.rawValue) }
            case let .scenario(scenarioID):
                object("scenario") { $0.number("scenarioID", ifPresent: scenarioID) }
            }
            close("}")
        }

        /// A JSON string, its characters escaped as ``JSONStringEscaping`` says.
        mutating func quoted(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            if JSONStringEscaping.needsEscaping(value) {
                bytes.append(contentsOf: JSONStringEscaping.escaped(value))
            } else {
                bytes.append(contentsOf: value.utf8)
            }
            bytes.append(UInt8(ascii: "\""))
        }
    }
}

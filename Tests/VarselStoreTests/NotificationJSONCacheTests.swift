import Foundation
import Testing
import VarselCore
import VarselStore

@Suite("The cache of decoded notifications")
struct NotificationJSONCacheTests {
    let item = NotificationItem(
        id: 7, recipientID: 3, kind: .assignment, title: "New assignment: Kari Nordmann", body: "Storgata 1",
        createdAt: Date(timeIntervalSinceReferenceDate: 815_000_000.123_456_789), deepLink: .contact(contactID: 4, assignmentID: 7),
        personalDetails: ["Kari Nordmann"])

    @Test("a remembered notification is returned without decoding; a forgotten one is decoded again")
    func remembersAndForgets() throws {
        let cache = NotificationJSONCache(capacity: 2)
        // Text no decoder could read: only the cache can answer for it.
        cache.remember(item, json: "remembered, not JSON")
        #expect(try cache.item(json: "remembered, not JSON", decoder: JSONDecoder()) == item)
        // Two newer entries push the first out of a cache of two.
        let json = String(decoding: try JSONEncoder().encode(item), as: UTF8.self)
        #expect(try cache.item(json: json, decoder: JSONDecoder()) == item, "a miss is decoded")
        cache.remember(item, json: "another")
        #expect(throws: DecodingError.self) { try cache.item(json: "remembered, not JSON", decoder: JSONDecoder()) }
    }

    @Test("the stored JSON decodes to the very notification that was encoded, dates to the bit: what makes the text a safe key")
    func roundTripIsExact() throws {
        let decoded = try JSONDecoder().decode(NotificationItem.self, from: JSONEncoder().encode(item))
        #expect(decoded == item)
        #expect(decoded.createdAt.timeIntervalSinceReferenceDate.bitPattern == item.createdAt.timeIntervalSinceReferenceDate.bitPattern)
    }
}

import Foundation
import Testing
import VarselCore
import VarselService
import VarselStore

@testable import VarselLive

@Suite("A stream's waiting messages")
struct WaitingMessagesTests {
    static func event(_ id: Int64) -> StreamMessage {
        .event(StoredEvent(id: id, userID: UserID(1), payload: .unreadCount(Int(id)), createdAt: Date(timeIntervalSince1970: 0)))
    }

    static func id(_ message: StreamMessage?) -> Int64? {
        guard case let .event(event) = message else { return nil }
        return event.id
    }

    @Test("messages come out in the order handed over, also when more arrive while some wait, and none after the last")
    func firstInFirstOut() {
        var waiting = WaitingMessages()
        waiting.append([Self.event(1), Self.event(2)])
        #expect(Self.id(waiting.popFirst()) == 1)
        waiting.append([Self.event(3)])
        #expect(waiting.count == 2)
        #expect([waiting.popFirst(), waiting.popFirst()].map(Self.id) == [2, 3])
        #expect(waiting.popFirst() == nil && waiting.count == 0)
        waiting.append([Self.event(4)])
        waiting.removeAll()
        #expect(waiting.popFirst() == nil && waiting.count == 0)
    }
}

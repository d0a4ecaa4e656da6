import Foundation
import Testing
import VarselCore
import VarselStore

/// Mobile numbers and email addresses, and the message outbox, in every store.
@Suite("Store contract: contact channels and the message outbox")
struct ContactChannelStoreContractTests: StoreContract {
    let now = DemoData.now

    @Test("a channel is saved with its code's hash, verified only by that hash, and a new address is verified again", arguments: StoreKind.allCases)
    func verification(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await mentor(store, "kari")
        try await store.saveContactChannel(
            userID: kari.id, channel: .textMessage, address: "+4791234567", codeHash: "a", expiresAt: now + 600, at: now)
        var saved = try #require(try await store.contactChannels(of: kari.id).first)
        #expect(saved.address == "+4791234567" && saved.verifiedAt == nil && saved.codeHash == "a" && saved.codeExpiresAt == now + 600)
        #expect(try await store.recordWrongCode(userID: kari.id, channel: .textMessage) == 1)
        #expect(try await store.markContactChannelVerified(userID: kari.id, channel: .textMessage, codeHash: "b", at: now) == false)
        #expect(try await store.markContactChannelVerified(userID: kari.id, channel: .textMessage, codeHash: "a", at: now + 5))
        saved = try #require(try await store.contactChannels(of: kari.id).first)
        #expect(saved.verifiedAt == now + 5 && saved.codeHash == nil && saved.wrongCodes == 0)
        #expect(try await store.verifiedContactChannels(forAnyOf: [kari.id]).map(\.channel) == [.textMessage])
        // The same number again keeps its verification; another one is not verified until its code comes back.
        try await store.saveContactChannel(
            userID: kari.id, channel: .textMessage, address: "+4791234567", codeHash: "c", expiresAt: now + 900, at: now + 300)
        #expect(try await store.contactChannels(of: kari.id).first?.verifiedAt == now + 5)
        try await store.saveContactChannel(
            userID: kari.id, channel: .textMessage, address: "+4741234567", codeHash: "d", expiresAt: now + 900, at: now + 300)
        #expect(try await store.contactChannels(of: kari.id).first?.verifiedAt == nil)
        #expect(try await store.verifiedContactChannels(forAnyOf: [kari.id]).isEmpty)
        #expect(try await store.deleteContactChannel(userID: kari.id, channel: .textMessage))
        #expect(try await store.deleteContactChannel(userID: kari.id, channel: .textMessage) == false)
    }

    @Test(
        "the outbox queues a notification's message once per channel, moves its cursor only from where it was, and a sent one enters the assignment's history",
        arguments: StoreKind.allCases)
    func outbox(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await mentor(store, "kari")
        let (assignment, _, item) = try await store.createAssignment(
            mentorID: kari.id, coordinatorID: nil, contact: NewContact(name: "Per", phone: "1", address: "Gate 1", notes: ""), at: now
        ) { _, _ in note(kari.id, kind: .assignment) }
        #expect(try await store.messageOutboxCursor() == nil)
        let message = NewMessageDelivery(notificationID: item.id, userID: kari.id, channel: .email, dueAt: now + 60)
        #expect(try await store.enqueueMessages([message], after: nil, through: 5, at: now))
        #expect(try await store.enqueueMessages([message], after: nil, through: 6, at: now) == false, "another instance moved the cursor first")
        #expect(try await store.enqueueMessages([message], after: 5, through: 6, at: now), "the same message again is dropped")
        #expect(try await store.messageOutboxCursor() == 6)
        #expect(try await store.claimDueMessages(at: now + 59, limit: 10, leaseUntil: now + 200).isEmpty)
        let claimed = try await store.claimDueMessages(at: now + 60, limit: 10, leaseUntil: now + 200)
        #expect(claimed.map(\.channel) == [.email] && claimed.first?.notificationID == item.id)
        #expect(try await store.claimDueMessages(at: now + 61, limit: 10, leaseUntil: now + 200).isEmpty, "leased")
        #expect(try await store.isUnseen(notificationID: item.id))
        try await store.finishMessage(id: try #require(claimed.first).id, outcome: .sent, at: now + 62)
        #expect(try await store.escalations(assignmentID: assignment.id)[.emailSent] == now + 62)
        #expect(try await store.queuedMessages(notificationID: item.id).isEmpty)
        _ = try await store.respond(to: assignment.id, status: .acknowledged, at: now + 70)
        #expect(try await store.isUnseen(notificationID: item.id) == false)
        #expect(try await store.pruneMessages(before: now + 63) == 1)
    }
}

import Foundation
import Testing
import VarselCore
import VarselStore

/// Notifications scheduled for later in every store: changed or cancelled while they wait, taken once their time comes.
@Suite("Store contract: scheduled sends")
struct ScheduledSendStoreContractTests: StoreContract {
    let now = DemoData.now

    func send(_ sender: User, to recipients: [User], at sendAt: Date, title: String = "Scenario for Monday") -> NewScheduledSend {
        NewScheduledSend(
            senderID: sender.id, recipientIDs: recipients.map(\.id), kind: .scenarioPrompt, title: title, body: "Work through it.",
            urgency: .normal, sendAt: sendAt)
    }

    @Test("a send keeps what it was given; while it waits it is listed soonest first, and can be changed", arguments: StoreKind.allCases)
    func keptListedChanged(kind: StoreKind) async throws {
        let store = try await kind.make()
        let (kari, ola, coordinator) = (try await mentor(store, "kari"), try await mentor(store, "ola"), try await mentor(store, "siri"))
        let later = try await store.scheduleSend(send(coordinator, to: [kari, ola], at: now + 7200, title: "Later"), at: now)
        let sooner = try await store.scheduleSend(send(kari, to: [ola], at: now + 3600, title: "Sooner"), at: now)
        #expect(later.recipientIDs == [kari.id, ola.id])
        #expect(later.state == .waiting && later.endedAt == nil && later.createdAt == now)
        #expect(try await store.scheduledSend(id: later.id) == later)
        #expect(try await store.waitingScheduledSends(senderID: nil).map(\.id) == [sooner.id, later.id])
        #expect(try await store.waitingScheduledSends(senderID: coordinator.id).map(\.id) == [later.id])
        let changed = try #require(
            try await store.changeScheduledSend(id: later.id, sendAt: now + 60, title: "Now sooner", body: "New", urgency: .urgent, at: now))
        #expect(changed.sendAt == now + 60 && changed.title == "Now sooner" && changed.body == "New" && changed.urgency == .urgent)
        #expect(try await store.waitingScheduledSends(senderID: nil).map(\.id) == [later.id, sooner.id])
        await #expect(throws: StoreError.unknownRecipient(UserID(999))) {
            try await store.scheduleSend(
                NewScheduledSend(
                    senderID: kari.id, recipientIDs: [ola.id, UserID(999)], kind: .scenarioPrompt, title: "T", body: "", urgency: .normal,
                    sendAt: now + 60), at: now)
        }
        #expect(try await store.waitingScheduledSends(senderID: kari.id).map(\.id) == [sooner.id], "a refused send stores nothing")
    }

    @Test(
        "an idempotency key stores one send: the same request again is a replay, another request is refused, and many at once store one",
        arguments: StoreKind.allCases)
    func idempotencyKey(kind: StoreKind) async throws {
        let store = try await kind.make()
        let (kari, coordinator) = (try await mentor(store, "kari"), try await mentor(store, "siri"))
        let key = IdempotencyKey(senderID: coordinator.id, key: "monday", fingerprint: "a")
        let first = try await store.scheduleSend(send(coordinator, to: [kari], at: now + 3600), idempotencyKey: key, at: now)
        #expect(!first.isReplay)
        let again = try await store.scheduleSend(send(coordinator, to: [kari], at: now + 3600), idempotencyKey: key, at: now + 5)
        #expect(again == ScheduledSendCreated(send: first.send, isReplay: true))
        #expect(try await store.scheduledSend(requestedWith: key) == again, "found by its key alone")
        #expect(try await store.scheduledSend(requestedWith: IdempotencyKey(senderID: coordinator.id, key: "new", fingerprint: "a")) == nil)
        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await store.scheduledSend(requestedWith: IdempotencyKey(senderID: coordinator.id, key: "monday", fingerprint: "b"))
        }
        await #expect(throws: StoreError.idempotencyKeyReused) {
            try await store.scheduleSend(
                send(coordinator, to: [kari], at: now + 3600, title: "Other"),
                idempotencyKey: IdempotencyKey(senderID: coordinator.id, key: "monday", fingerprint: "b"), at: now)
        }
        // The key is the sender's own: another sender's same key is another send.
        let kariKey = IdempotencyKey(senderID: kari.id, key: "monday", fingerprint: "a")
        let kariSend = try await store.scheduleSend(send(kari, to: [kari], at: now + 3600), idempotencyKey: kariKey, at: now)
        #expect(!kariSend.isReplay && kariSend.send.id != first.send.id)
        // Ten requests with one new key at once: one stores, the others find it.
        let burst = IdempotencyKey(senderID: coordinator.id, key: "burst", fingerprint: "a")
        let results = try await withThrowingTaskGroup(of: ScheduledSendCreated.self) { group in
            for _ in 0..<10 {
                group.addTask { try await store.scheduleSend(self.send(coordinator, to: [kari], at: now + 60), idempotencyKey: burst, at: now) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(results.map(\.send.id)).count == 1)
        #expect(results.filter { !$0.isReplay }.count == 1)
        #expect(try await store.waitingScheduledSends(senderID: coordinator.id).count == 2)
    }

    @Test(
        "a send is taken once its time comes, then neither changed nor cancelled; a cancelled one is never taken",
        arguments: StoreKind.allCases)
    func takenOnceCancelledNever(kind: StoreKind) async throws {
        let store = try await kind.make()
        let kari = try await mentor(store, "kari")
        let due = try await store.scheduleSend(send(kari, to: [kari], at: now + 60), at: now)
        let cancelled = try await store.scheduleSend(send(kari, to: [kari], at: now + 60), at: now)
        let notYet = try await store.scheduleSend(send(kari, to: [kari], at: now + 3600), at: now)
        #expect(try await store.cancelScheduledSend(id: cancelled.id, at: now + 1))
        #expect(try await store.cancelScheduledSend(id: cancelled.id, at: now + 2) == false)
        #expect(try await store.takeDueScheduledSends(at: now + 59, limit: 10).isEmpty)
        let taken = try await store.takeDueScheduledSends(at: now + 60, limit: 10)
        #expect(taken.map(\.id) == [due.id])
        #expect(taken.first?.state == .sending)
        #expect(try await store.cancelScheduledSend(id: due.id, at: now + 61) == false)
        #expect(
            try await store.changeScheduledSend(id: due.id, sendAt: now + 9000, title: "T", body: "", urgency: .normal, at: now + 61) == nil)
        // Not finished (its instance stopped): taken again in the next round, and by another instance.
        #expect(try await store.takeDueScheduledSends(at: now + 62, limit: 10).map(\.id) == [due.id])
        try await store.finishScheduledSend(id: due.id, at: now + 63)
        #expect(try await store.takeDueScheduledSends(at: now + 64, limit: 10).isEmpty)
        #expect(try await store.scheduledSend(id: due.id)?.state == .sent)
        #expect(try await store.scheduledSend(id: due.id)?.endedAt == now + 63)
        #expect(try await store.scheduledSend(id: cancelled.id)?.state == .cancelled)
        #expect(try await store.waitingScheduledSends(senderID: nil).map(\.id) == [notYet.id])
        #expect(try await store.takeDueScheduledSends(at: now + 3600, limit: 10).map(\.id) == [notYet.id])
    }

    @Test("a send that publishes a scenario says so, and its scenario is published once however often it is asked", arguments: StoreKind.allCases)
    func publishesScenarioOnce(kind: StoreKind) async throws {
        let store = try await kind.make()
        let (kari, coordinator) = (try await mentor(store, "kari"), try await mentor(store, "siri"))
        var new = send(coordinator, to: [kari], at: now + 60)
        new.publishesScenario = true
        let scheduled = try await store.scheduleSend(new, at: now)
        #expect(scheduled.publishesScenario)
        #expect(try await store.scheduledSend(id: scheduled.id)?.publishesScenario == true)
        #expect(try await store.waitingScheduledSends(senderID: nil).map(\.publishesScenario) == [true])
        let plain = try await store.scheduleSend(send(coordinator, to: [kari], at: now + 60), at: now)
        #expect(try await store.scheduledSend(id: plain.id)?.publishesScenario == false)
        func publish(_ send: ScheduledSend? = nil) async throws -> (Scenario, [NotificationItem]) {
            try await store.publishScenario(
                title: "Stairs", body: "Text", coordinatorID: coordinator.id, mentorIDs: [kari.id], scheduledSendID: (send ?? scheduled).id,
                at: now + 60
            ) { scenarioID, mentorID in
                NewNotification(
                    recipientID: mentorID, senderID: nil, kind: .scenarioPrompt, title: "Scenario", body: "",
                    deepLink: .scenario(scenarioID: scenarioID))
            }
        }
        let (first, told) = try await publish()
        let (again, toldAgain) = try await publish()
        #expect(told.count == 1 && toldAgain.isEmpty && again.id == first.id)
        #expect(try await store.scenarios(forMentor: kari.id).count == 1)
        #expect(try await store.notifications(for: kari.id, filter: .all, after: nil, limit: 10).items.count == 1)
        // Two instances at once: one scenario, and neither fails.
        let raced = try await store.scheduleSend(new, at: now)
        async let one = publish(raced)
        async let two = publish(raced)
        let (a, b) = try await (one, two)
        #expect(a.0.id == b.0.id && a.1.count + b.1.count == 1)
        #expect(try await store.scenarios(forMentor: kari.id).count == 2)
    }
}

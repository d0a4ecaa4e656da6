import Testing

@testable import VarselWeb

@Suite("Confirmations carried across a redirect")
struct FlashTests {
    static let all: [Flash] = [
        .markedRead(count: 3), .deleted(count: 1), .settingsSaved, .acknowledged, .declined, .sent, .assignmentCreated, .visitDone,
        .reassigned, .pauseRequested, .pauseEnded, .languageSaved, .passwordChanged, .scenarioDone, .scenarioPublished,
        .personDeactivated, .personReactivated, .roleChanged, .certificationsSaved, .passwordChosen, .erased, .passkeyAdded,
        .passkeyRenamed, .passkeyRemoved,
    ]

    @Test("every confirmation reads back as itself from its ?done= value: ending a pause is not requesting one")
    func roundTrip() {
        for flash in Self.all {
            #expect(Flash(query: flash.query) == flash, "\(flash.query)")
        }
        #expect(Flash(query: "pause-ended") == .pauseEnded)
        #expect(Flash(query: "passkey-removed") == .passkeyRemoved)
        #expect(Flash(query: "readall-x") == nil && Flash(query: "nonsense") == nil)
    }
}

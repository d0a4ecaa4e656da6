import Foundation

/// The fixed demo data that `varsel transcript` speaks and `varsel serve --demo` loads: a mentor with
/// notifications of all four kinds, exactly three of them unread.
public enum DemoData {
    /// The demo's fixed "now": Tuesday 17 November 2026, 10:00 in Oslo.
    public static let now = Date(timeIntervalSince1970: 1_794_906_000)

    /// A person a mentor visits; every field is personal data.
    public struct Contact: Sendable, Hashable, Codable {
        public var name: String
        public var phone: String
        public var address: String
        public var notes: String
    }

    /// One notification of the demo, before it has an id or a recipient.
    public struct Entry: Sendable, Hashable {
        public var kind: NotificationKind
        public var title: String
        public var body: String
        /// How long before ``DemoData/now`` it was created.
        public var age: TimeInterval
        public var isRead: Bool
        public var urgency: Urgency
        public var personalDetails: [String]
        /// The index into ``contacts(_:)`` for assignments.
        public var contactIndex: Int?
    }

    /// How long ago the demo's overdue assignment was made: past both escalation deadlines (24 and 48 hours).
    public static let overdueAge: TimeInterval = 50 * 3600

    /// The person of the second demo mentor's overdue assignment.
    public static func overdueContact(_ language: Language) -> Contact {
        Contact(
            name: "Per Olsen", phone: "+47 934 56 789", address: "Fjordveien 3, 0250 Oslo",
            notes: language == .english ? "Lives alone. Call before the visit." : "Bor alene. Ring før besøket.")
    }

    /// The demo's training scenario: its title and text.
    public static func scenario(_ language: Language) -> (title: String, body: String) {
        switch language {
        case .english:
            (
                "A first visit",
                """
                You visit a woman in her seventies who lost her sight this spring. She has not left her flat since, and says she does not want to be a burden.
                Try how you would open the conversation, and how you would let her set the pace. Afterwards, note what you said first and how she answered.
                """
            )
        case .norwegianBokmal:
            (
                "Et første besøk",
                """
                Du besøker en kvinne i syttiårene som mistet synet i vår. Hun har ikke gått ut av leiligheten siden, og sier hun ikke vil være til bry.
                Prøv hvordan du ville åpnet samtalen, og hvordan du lar henne bestemme tempoet. Skriv etterpå hva du sa først, og hva hun svarte.
                """
            )
        }
    }

    /// The people the demo mentor visits.
    public static func contacts(_ language: Language) -> [Contact] {
        switch language {
        case .english:
            [
                Contact(
                    name: "Kari Nordmann", phone: "+47 912 34 567", address: "Storgata 1, 0155 Oslo",
                    notes: "Lost her sight this spring. Prefers visits before noon."),
                Contact(
                    name: "Ola Hansen", phone: "+47 987 65 432", address: "Kirkegata 5, 0153 Oslo",
                    notes: "Has a guide dog. Ring twice."),
            ]
        case .norwegianBokmal:
            [
                Contact(
                    name: "Kari Nordmann", phone: "+47 912 34 567", address: "Storgata 1, 0155 Oslo",
                    notes: "Mistet synet i vår. Foretrekker besøk før klokka tolv."),
                Contact(
                    name: "Ola Hansen", phone: "+47 987 65 432", address: "Kirkegata 5, 0153 Oslo",
                    notes: "Har førerhund. Ring på to ganger."),
            ]
        }
    }

    /// The demo notifications, newest first: four kinds, three unread. The dates in their texts are counted from
    /// `now`, as a real warning's would be: the certification expires seven days after its warning was sent, the
    /// pause lasts until seventeen days after it started.
    public static func entries(_ language: Language, now: Date = DemoData.now) -> [Entry] {
        let en = language == .english
        let certificationAge: TimeInterval = 2 * 3600
        let pauseAge: TimeInterval = 3 * 86400
        let expires = dayAndMonth(now.addingTimeInterval(-certificationAge + 7 * 86400), language)
        let pausedUntil = dayAndMonth(now.addingTimeInterval(-pauseAge + 17 * 86400), language)
        return [
            Entry(
                kind: .assignment, title: en ? "New assignment" : "Nytt oppdrag",
                body: en ? "Visit Kari Nordmann at Storgata 1 on Tuesday" : "Besøk Kari Nordmann i Storgata 1 på tirsdag",
                age: 5 * 60, isRead: false, urgency: .normal, personalDetails: ["Kari Nordmann", "Storgata 1"], contactIndex: 0),
            Entry(
                kind: .certificationExpiry, title: en ? "Certification expires in 7 days" : "Sertifiseringen utløper om 7 dager",
                body: en
                    ? "Your peer mentor certification expires on \(expires). Book a renewal course."
                    : "Likepersonsertifiseringen din utløper \(expires). Meld deg på et fornyelseskurs.",
                age: certificationAge, isRead: false, urgency: .normal, personalDetails: [], contactIndex: nil),
            Entry(
                kind: .scenarioPrompt, title: en ? "New training scenario" : "Nytt treningsscenario",
                body: en
                    ? "Practise a first visit with someone who recently lost their sight."
                    : "Øv på et første besøk hos en som nylig har mistet synet.",
                age: 26 * 3600, isRead: false, urgency: .normal, personalDetails: [], contactIndex: nil),
            Entry(
                kind: .pauseConfirmation, title: en ? "Your pause has started" : "Pausen din har startet",
                body: en ? "You will not get new assignments until \(pausedUntil)." : "Du får ikke nye oppdrag før \(pausedUntil).",
                age: pauseAge, isRead: true, urgency: .normal, personalDetails: [], contactIndex: nil),
            Entry(
                kind: .assignment, title: en ? "New assignment" : "Nytt oppdrag",
                body: en ? "Visit Ola Hansen at Kirkegata 5 on Friday" : "Besøk Ola Hansen i Kirkegata 5 på fredag",
                age: 9 * 86400, isRead: true, urgency: .normal, personalDetails: ["Ola Hansen", "Kirkegata 5"], contactIndex: 1),
        ]
    }

    /// A day and month as the demo's texts write them, in Oslo: `24 November`, `24. november`.
    static func dayAndMonth(_ date: Date, _ language: Language) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "Europe/Oslo") ?? .gmt
        let day = calendar.component(.day, from: date)
        let month = calendar.component(.month, from: date)
        let english = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"]
        let norwegian = ["januar", "februar", "mars", "april", "mai", "juni", "juli", "august", "september", "oktober", "november", "desember"]
        switch language {
        case .english: return "\(day) \(english[month - 1])"
        case .norwegianBokmal: return "\(day). \(norwegian[month - 1])"
        }
    }

    /// The demo notifications as items for `recipientID`, numbered from 1, contacts numbered from 1 in order.
    public static func notifications(_ language: Language, recipientID: UserID = 1, now: Date = DemoData.now) -> [NotificationItem] {
        entries(language, now: now).enumerated().map { index, entry in
            let created = now.addingTimeInterval(-entry.age)
            return NotificationItem(
                id: NotificationID(Int64(index + 1)),
                recipientID: recipientID,
                kind: entry.kind,
                title: entry.title,
                body: entry.body,
                createdAt: created,
                readAt: entry.isRead ? created.addingTimeInterval(600) : nil,
                urgency: entry.urgency,
                deepLink: entry.deepLink(contactID: entry.contactIndex.map { ContactID(Int64($0 + 1)) }),
                personalDetails: entry.personalDetails
            )
        }
    }
}

extension DemoData.Entry {
    /// The screen this entry opens; assignments open the contact with `contactID`.
    public func deepLink(contactID: ContactID?, assignmentID: AssignmentID? = nil) -> DeepLinkTarget {
        switch kind {
        case .assignment: .contact(contactID: contactID ?? 0, assignmentID: assignmentID)
        case .certificationExpiry: .certification(certificationID: nil)
        case .pauseConfirmation: .pause
        case .scenarioPrompt: .scenario(scenarioID: nil)
        case .summary, .serviceNotice: .notifications
        }
    }
}

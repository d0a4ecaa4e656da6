import Foundation
import VarselCore

/// One read of a contact's personal details: who, when, which contact, through which channel — never the details.
public struct ContactRead: Sendable, Codable, Hashable, Identifiable {
    public var id: Int64
    public var contactID: ContactID
    public var userID: UserID
    public var channel: ContactReadChannel
    public var at: Date

    public init(id: Int64, contactID: ContactID, userID: UserID, channel: ContactReadChannel, at: Date) {
        self.id = id
        self.contactID = contactID
        self.userID = userID
        self.channel = channel
        self.at = at
    }
}

/// The one recorder of reads of a contact's personal details; whatever shows or sends them (a page, a push, an
/// export) has it record the read, so the rule lives in one place.
public protocol ContactReadRecorder: Sendable {
    /// Records that `userID` read contact `contactID`'s personal details through `channel`, now.
    func recordRead(contactID: ContactID, by userID: UserID, through channel: ContactReadChannel) async throws
}

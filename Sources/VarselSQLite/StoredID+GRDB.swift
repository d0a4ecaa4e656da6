import GRDB
import VarselCore

// Typed ids are stored as their numbers: bound as arguments and read from rows like an `Int64`.
extension UserID: DatabaseValueConvertible {}
extension NotificationID: DatabaseValueConvertible {}
extension AssignmentID: DatabaseValueConvertible {}
extension ContactID: DatabaseValueConvertible {}
extension ScheduledSendID: DatabaseValueConvertible {}

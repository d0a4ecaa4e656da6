import NIOCore
import PostgresNIO
import VarselCore

/// A typed id as PostgreSQL sees it: a `bigint`, alone or in an array.
protocol PostgresStoredID: StoredID, PostgresNonThrowingEncodable, PostgresDecodable, PostgresArrayEncodable, PostgresArrayDecodable {}

extension PostgresStoredID {
    public static var psqlType: PostgresDataType { Int64.psqlType }
    public static var psqlFormat: PostgresFormat { Int64.psqlFormat }
    public static var psqlArrayType: PostgresDataType { Int64.psqlArrayType }

    public func encode<JSONEncoder: PostgresJSONEncoder>(into byteBuffer: inout ByteBuffer, context: PostgresEncodingContext<JSONEncoder>) {
        rawValue.encode(into: &byteBuffer, context: context)
    }

    public init<JSONDecoder: PostgresJSONDecoder>(
        from byteBuffer: inout ByteBuffer, type: PostgresDataType, format: PostgresFormat,
        context: PostgresDecodingContext<JSONDecoder>
    ) throws {
        self.init(rawValue: try Int64(from: &byteBuffer, type: type, format: format, context: context))
    }
}

extension UserID: PostgresStoredID {}
extension NotificationID: PostgresStoredID {}
extension AssignmentID: PostgresStoredID {}
extension ContactID: PostgresStoredID {}
extension ScheduledSendID: PostgresStoredID {}

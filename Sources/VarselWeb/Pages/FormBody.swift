import Foundation
import Hummingbird
import VarselService

/// A decoded `application/x-www-form-urlencoded` body; a field may repeat (check boxes).
struct FormBody {
    private var fields: [(String, String)]

    /// Whether the request says its body is `application/x-www-form-urlencoded`.
    static func isForm(_ request: Request) -> Bool {
        JSONCoding.mediaType(of: request) == "application/x-www-form-urlencoded"
    }

    static func read(_ request: Request) async throws -> FormBody {
        var request = request
        let buffer = try await request.collectBody(upTo: Limits.maxBodyBytes)
        return FormBody(encoded: String(buffer: buffer))
    }

    init(encoded: String) {
        fields = encoded.split(separator: "&").map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                $0.replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            return (parts.first ?? "", parts.count > 1 ? parts[1] : "")
        }
    }

    subscript(name: String) -> String? { fields.first { $0.0 == name }?.1 }

    func all(_ name: String) -> [String] { fields.filter { $0.0 == name }.map(\.1) }
}

import Foundation
import Synchronization
import VarselCore

/// The notifications most recently written to or read from an event log, by their stored JSON.
///
/// Every event is read back several times right after it is written: by the event pump of each instance, by the
/// push worker, by a stream that resumes. Decoding its JSON was about 5 % of the server's CPU at 1,000
/// notifications a second. The JSON text is the key, so an entry is never stale: the same text always decodes to
/// the same notification (dates are stored to the bit), whichever transaction wrote it and whether it committed.
/// Each store keeps one.
public final class NotificationJSONCache: Sendable {
    /// How many notifications a store's cache holds: a second of writes at the rates measured, and then some.
    public static let storeCapacity = 2048

    private struct State {
        var items: [String: NotificationItem] = [:]
        /// Keys in the order they came, as a ring: the oldest is forgotten first.
        var keys: [String?]
        var next = 0
    }

    private let state: Mutex<State>

    public init(capacity: Int) {
        state = Mutex(State(keys: Array(repeating: nil, count: max(1, capacity))))
    }

    /// Remembers that `json` is the stored form of `item`.
    public func remember(_ item: NotificationItem, json: String) {
        state.withLock { state in
            guard state.items.updateValue(item, forKey: json) == nil else { return }
            if let oldest = state.keys[state.next] { state.items[oldest] = nil }
            state.keys[state.next] = json
            state.next = (state.next + 1) % state.keys.count
        }
    }

    /// The notification stored as `json`, decoded once.
    public func item(json: String, decoder: JSONDecoder) throws -> NotificationItem {
        if let item = state.withLock({ $0.items[json] }) { return item }
        let item = try decoder.decode(NotificationItem.self, from: Data(json.utf8))
        remember(item, json: json)
        return item
    }
}

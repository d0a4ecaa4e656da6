import Foundation
import Logging
import VarselStore

/// Says in the log when the store becomes unavailable and when it is back: once per outage, however many requests
/// and rounds of the workers it refuses meanwhile.
struct StoreOutageLog {
    let logger: Logger

    func follow(_ health: StoreHealth) {
        let logger = logger
        health.onChange { began, ended in
            if let began {
                logger.error(
                    "the store is unavailable: requests that need it are refused (503, or 507 for a full disk) until it is back",
                    metadata: ["store.condition": "\(began.condition.name)"])
            }
            if let ended {
                let seconds = String(format: "%.1f", Date().timeIntervalSince(ended.since))
                logger.notice(
                    "the store is available again", metadata: ["store.condition": "\(ended.condition.name)", "outage.seconds": "\(seconds)"])
            }
        }
    }
}

import Foundation

/// What is known of one device's Web Push delivery: whether its pushes are shown, in words a mentor can act on.
///
/// A push service accepting a push (201) does not mean the phone showed it: iOS stops showing an installed web app's
/// pushes without telling the server, and a person may turn notifications off in Settings. The service worker
/// reports each notification it shows (a receipt), so a device is *stale* when pushes were accepted but none was
/// shown for a while (`staleAfter`) or for several pushes in a row (`staleCount`).
public struct PushDeviceStatus: Sendable, Hashable {
    /// The device as a person names it: `iPhone (Safari)`.
    public var name: String
    public var createdAt: Date
    public var lastAcceptedAt: Date?
    public var lastShownAt: Date?
    /// When the first push accepted after the last shown one was accepted; nil when every accepted push was shown.
    public var firstUnshownAt: Date?
    /// Pushes accepted since the last one shown.
    public var unshownCount: Int
    /// When the push service said the subscription is gone (404, 410).
    public var revokedAt: Date?

    public init(
        name: String, createdAt: Date, lastAcceptedAt: Date? = nil, lastShownAt: Date? = nil, firstUnshownAt: Date? = nil,
        unshownCount: Int = 0, revokedAt: Date? = nil
    ) {
        self.name = name
        self.createdAt = createdAt
        self.lastAcceptedAt = lastAcceptedAt
        self.lastShownAt = lastShownAt
        self.firstUnshownAt = firstUnshownAt
        self.unshownCount = unshownCount
        self.revokedAt = revokedAt
    }

    /// How a device's delivery stands.
    public enum Health: Sendable, Hashable {
        /// Subscribed, nothing pushed to it yet.
        case waiting
        /// Its last push was shown.
        case shows(lastShown: Date)
        /// Pushes were accepted but not shown: since when nothing was confirmed.
        case notConfirmed(since: Date)
        /// The push service no longer takes its pushes.
        case revoked(at: Date)

        /// Whether the device can be counted on to show a notification.
        public var isShowing: Bool {
            switch self {
            case .waiting, .shows: true
            case .notConfirmed, .revoked: false
            }
        }
    }

    /// The device's health at `now`: stale after `staleAfter` without a shown push, or `staleCount` unshown ones.
    public func health(now: Date, staleAfter: TimeInterval, staleCount: Int = 3) -> Health {
        if let revokedAt { return .revoked(at: revokedAt) }
        if unshownCount > 0, let firstUnshownAt,
            unshownCount >= staleCount || now.timeIntervalSince(firstUnshownAt) >= staleAfter
        {
            return .notConfirmed(since: lastShownAt ?? firstUnshownAt)
        }
        if let lastShownAt { return .shows(lastShown: lastShownAt) }
        return .waiting
    }

    /// A device's name from its browser's User-Agent: `iPhone (Safari)`, `Android (Chrome)`, `Windows (Firefox)`.
    public static func deviceName(userAgent: String) -> String {
        let agent = userAgent.lowercased()
        let system =
            agent.contains("iphone")
            ? "iPhone"
            : agent.contains("ipad")
                ? "iPad"
                : agent.contains("android")
                    ? "Android"
                    : agent.contains("windows")
                        ? "Windows"
                        : agent.contains("mac os") || agent.contains("macintosh")
                            ? "Mac"
                            : agent.contains("cros") ? "ChromeOS" : agent.contains("linux") ? "Linux" : nil
        let browser =
            agent.contains("edg/")
            ? "Edge"
            : agent.contains("firefox/") || agent.contains("fxios/")
                ? "Firefox"
                : agent.contains("samsungbrowser/")
                    ? "Samsung Internet"
                    : agent.contains("crios/")
                        ? "Chrome"
                        : agent.contains("chromium/") ? "Chromium" : agent.contains("chrome/") ? "Chrome" : agent.contains("safari/") ? "Safari" : nil
        switch (system, browser) {
        case let (system?, browser?): return "\(system) (\(browser))"
        case let (system?, nil): return system
        case let (nil, browser?): return browser
        case (nil, nil): return "Browser"
        }
    }
}

import Foundation

/// How long an outbox waits before trying an item again: `initial` doubled for each attempt after the first, at most
/// `maximum`, spread by ±20 % so items that failed together are not all tried again at once.
func retryDelay(afterAttempt attempts: Int, initial: TimeInterval, maximum: TimeInterval) -> TimeInterval {
    min(maximum, initial * pow(2, Double(attempts - 1))) * Double.random(in: 0.8...1.2)
}

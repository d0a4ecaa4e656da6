import Testing

@testable import VarselServer

@Suite("varsel ready")
struct ReadinessWaitTests {
    @Test("reads /readyz's answers: 200 is ready, 503 gives its sentence, anything that is not HTTP is no answer")
    func answers() {
        #expect(ReadinessWait.answer("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nready\n") == .ready)
        #expect(
            ReadinessWait.answer("HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\n\r\nnot ready: The database did not answer in time.\n")
                == .notReady("The database did not answer in time."))
        #expect(ReadinessWait.answer("HTTP/1.1 502 Bad Gateway\r\n\r\n<html>") == .notReady("it answered 502"))
        #expect(ReadinessWait.answer("") == .noAnswer)
        #expect(ReadinessWait.answer("SSH-2.0-OpenSSH") == .noAnswer)
    }
}

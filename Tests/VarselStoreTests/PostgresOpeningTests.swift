import Foundation
import NIOCore
import Testing

@testable import VarselPostgres

/// How a PostgreSQL database that cannot be opened is told: the cases a live server cannot easily show.
@Suite struct PostgresOpeningTests {
    @Test func aUserOrPasswordWithAReservedCharacterNeedsPercentEncoding() {
        #expect(PostgresRepository.needsPercentEncoding("postgres://varsel:p@ss@db/varsel"))
        #expect(PostgresRepository.needsPercentEncoding("postgres://varsel:pa#ss@db/varsel"))
        #expect(PostgresRepository.needsPercentEncoding("postgres://varsel:pa/ss@db/varsel"))
        #expect(PostgresRepository.needsPercentEncoding("postgres://varsel:pa?ss@db/varsel"))
        #expect(PostgresRepository.needsPercentEncoding("postgres://varsel:pa:ss@db/varsel"))
        #expect(!PostgresRepository.needsPercentEncoding("postgres://varsel:p%40ss%23w%2Frd@db:5432/varsel?sslmode=require"))
        #expect(!PostgresRepository.needsPercentEncoding("postgres://varsel@db/varsel"))
        #expect(!PostgresRepository.needsPercentEncoding("postgres://db/varsel"))
    }

    @Test func aConnectionThatTimesOutIsAServerThatDoesNotAnswer() {
        #expect(
            PostgresRepository.connectionFailure(ChannelError.connectTimeout(.seconds(10)), host: "db", port: 5432)
                == .noAnswer(host: "db", port: 5432, seconds: 10))
        #expect(
            PostgresOpenFailure.noAnswer(host: "db", port: 5432, seconds: 10).description
                == "No PostgreSQL server answered at db:5432 within 10 seconds: check the host and port in the database URL, and that no firewall is in the way."
        )
        #expect(
            PostgresRepository.connectionFailure(IOError(errnoCode: ECONNREFUSED, reason: "connect"), host: "db", port: 5432)
                == .refused(host: "db", port: 5432))
    }
}

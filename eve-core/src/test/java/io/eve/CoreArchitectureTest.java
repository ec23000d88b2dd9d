package io.eve;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.GeneralCodingRules;
import org.junit.jupiter.api.Test;

/** The module rules of CONVENTIONS.md and DESIGN.md section 9, for eve-core. */
class CoreArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.eve");

    @Test
    void shouldDependOnTheJdkTheLeavesAndSlf4jOnly() {
        classes()
                .that()
                .resideInAnyPackage(
                        "io.eve",
                        "io.eve.batch..",
                        "io.eve.execution..",
                        "io.eve.protocol..",
                        "io.eve.runtime..",
                        "io.eve.transport..")
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage(
                        "java..",
                        // the JDK's TLS (io.eve.transport.netty.tls): SSLEngine, trust managers, X.500 names
                        "javax.net..",
                        "javax.security.auth.x500..",
                        "io.eve..",
                        "org.slf4j..",
                        "io.netty..")
                .check(MAIN);
    }

    @Test
    void shouldKeepNettyInsideTheNettyTransport() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.eve.transport.netty..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.netty..")
                .because("Netty types never appear outside the Netty transport (DESIGN.md section 3)")
                .check(MAIN);
    }

    @Test
    void shouldNotPrintToTheConsole() {
        GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS.check(MAIN);
    }

    @Test
    void shouldKeepTheBatcherFreeOfClocksAndThreads() {
        noClasses()
                .that()
                .resideInAPackage("io.eve.batch..")
                .should()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .dependOnClassesThat()
                .resideInAPackage("java.util.concurrent..")
                .because("protocol roles take time as an argument (DESIGN.md section 9)")
                .check(MAIN);
    }

    @Test
    void shouldKeepTheClientSessionFreeOfClocksThreadsAndTransports() {
        noClasses()
                .that()
                .haveFullyQualifiedName("io.eve.client.ClientSession")
                .or()
                .haveFullyQualifiedName("io.eve.client.AttemptQueue")
                .should()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .dependOnClassesThat()
                .resideInAnyPackage("java.util.concurrent..", "io.eve.transport..")
                .because(
                        "the client's protocol takes time as an argument, so the simulator can drive it (decision 0035)")
                .check(MAIN);
    }
}

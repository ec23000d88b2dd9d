package io.eve.verify;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.GeneralCodingRules;
import java.security.MessageDigest;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** DESIGN.md section 9 for eve-verify: protocol state machines touch no clock, thread or socket. */
class VerifyArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.eve.verify");

    @Test
    void shouldKeepStateMachinesFreeOfClocksThreadsAndSockets() {
        noClasses()
                .that()
                .resideInAPackage("io.eve.verify..")
                .and()
                .resideOutsideOfPackage("io.eve.verify.runtime")
                .and()
                .haveNameNotMatching(".*\\.AuthenticatingTransport(\\$.*)?")
                .should()
                .callMethod(System.class, "nanoTime")
                .orShould()
                .callMethod(System.class, "currentTimeMillis")
                .orShould()
                .dependOnClassesThat()
                .resideInAnyPackage("java.util.concurrent..", "java.net..", "java.nio.channels..")
                .orShould()
                .dependOnClassesThat()
                .areAssignableTo(Thread.class)
                .because(
                        "protocol roles take time as an argument; the replica runtime (io.eve.verify.runtime) binds them"
                                + " to threads and clocks, and AuthenticatingTransport is a transport (its clock only rate-limits a log)")
                .check(MAIN);
    }

    @Test
    void shouldNotPrintToTheConsole() {
        GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS.check(MAIN);
    }

    @Test
    void shouldCompareTagsInConstantTime() {
        JavaClasses auth = MAIN.that(JavaClass.Predicates.resideInAPackage("io.eve.verify.auth"));
        classes()
                .that()
                .haveSimpleName("Authenticator")
                .should()
                .callMethod(MessageDigest.class, "isEqual", byte[].class, byte[].class)
                .check(auth);
        noClasses()
                .should()
                .callMethod(Arrays.class, "equals", byte[].class, byte[].class)
                .because(
                        "tags are compared with MessageDigest.isEqual, whose time does not depend on where they differ")
                .check(auth);
    }
}

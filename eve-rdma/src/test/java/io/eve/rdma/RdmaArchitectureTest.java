package io.eve.rdma;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.GeneralCodingRules;
import org.junit.jupiter.api.Test;

/** DiSNI stays in its package (so nothing else can set off its native initializer); Netty in the control one. */
class RdmaArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.eve.rdma");

    @Test
    void shouldKeepDisniInsideTheDisniPackage() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.eve.rdma.disni..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("com.ibm.disni..")
                .check(MAIN);
    }

    @Test
    void shouldKeepNettyInsideTheControlPackage() {
        noClasses()
                .that()
                .resideOutsideOfPackage("io.eve.rdma.control..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("io.netty..")
                .check(MAIN);
    }

    @Test
    void shouldNotPrintToTheConsole() {
        GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS.check(MAIN);
    }
}

package io.eve.merkle;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.GeneralCodingRules;
import org.junit.jupiter.api.Test;

/** The module rules of CONVENTIONS.md, for the eve-merkle leaf. */
class ArchitectureTest {
    private static final JavaClasses MAIN = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.eve.merkle");

    @Test
    void shouldDependOnTheJdkAlone() {
        classes()
                .should()
                .onlyDependOnClassesThat()
                .resideInAnyPackage("io.eve.merkle..", "java..")
                .because("eve-merkle is a leaf module: JDK only")
                .check(MAIN);
    }

    @Test
    void shouldNotPrintToTheConsole() {
        GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS.check(MAIN);
    }

    @Test
    void shouldKeepMechanicsOutOfTheApiPackage() {
        noClasses()
                .that()
                .resideInAPackage("io.eve.merkle")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.eve.merkle.graph..", "io.eve.merkle.trie..")
                .because("the port does not know its implementations")
                .check(MAIN);
    }
}

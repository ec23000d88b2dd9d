package io.eve.mixer;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.GeneralCodingRules;
import java.util.Random;

/**
 * The module is a leaf (DESIGN.md section 3): it uses the JDK and itself, nothing else, writes nothing to
 * the console, and reads none of the sources of nondeterminism that would let replicas mix differently.
 */
@AnalyzeClasses(packages = "io.eve.mixer", importOptions = ImportOption.DoNotIncludeTests.class)
class MixerArchitectureTest {
    @ArchTest
    static final ArchRule shouldDependOnlyOnTheJdk = classes()
            .that()
            .resideInAPackage("io.eve.mixer..")
            .should()
            .onlyDependOnClassesThat()
            .resideInAnyPackage("java..", "io.eve.mixer..");

    @ArchTest
    static final ArchRule shouldNotWriteToTheConsole = GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS;

    @ArchTest
    static final ArchRule shouldNotReadClocksOrSharedRandomness = noClasses()
            .should()
            .dependOnClassesThat()
            .areAssignableTo(Random.class)
            .orShould()
            .callMethod(Math.class, "random")
            .orShould()
            .callMethod(System.class, "currentTimeMillis")
            .orShould()
            .callMethod(System.class, "nanoTime")
            .orShould()
            .callMethod(System.class, "identityHashCode", Object.class);
}

package io.eve.enhance;

import java.io.IOException;
import java.util.List;
import net.bytebuddy.asm.AsmVisitorWrapper;
import net.bytebuddy.build.Plugin;
import net.bytebuddy.description.field.FieldDescription;
import net.bytebuddy.description.field.FieldList;
import net.bytebuddy.description.method.MethodList;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.dynamic.DynamicType;
import net.bytebuddy.implementation.Implementation;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.MethodVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;
import net.bytebuddy.pool.TypePool;

/**
 * A Byte Buddy build plugin that makes every write to replicated state tracked. In every class it
 * transforms (the whole module: the state classes, the classes that use them, their inner classes and
 * the synthetic methods of lambdas), each {@code PUTFIELD} to a replicated field is preceded by a call to
 * {@code io.eve.merkle.graph.Tracking.beforeWrite(object)}, which saves the object's pre-image for the
 * batch in progress the first time, as {@code ObjectGraphState.modify} does. Subclasses of
 * {@code StateObject} and every class with a rewritten write are marked {@code @Enhanced}: registration refuses an unmarked
 * state class, and the plugin skips marked classes, so running it twice changes nothing.
 *
 * <p>Docs: docs/state.md ("Tracked writes"); decision: docs/decisions/0020-build-time-write-tracking.md.
 * Stateless apart from a cache of field lookups; thread-safe.
 */
public final class TrackWritesPlugin implements Plugin {
    static final String BARRIER_OWNER = "io/eve/merkle/graph/Tracking";
    static final String BARRIER_NAME = "beforeWrite";
    static final String BARRIER_DESCRIPTOR = "(Lio/eve/merkle/graph/StateObject;)V";

    private final StateTypes types = new StateTypes();
    private final List<String> skipped;

    /** Creates the plugin for every class; Byte Buddy's build tools use this constructor. */
    public TrackWritesPlugin() {
        this(List.of());
    }

    /**
     * Creates the plugin for every class whose name starts with none of {@code skippedPrefixes} (tests
     * that need a class left as compiled, to exercise manual tracking).
     *
     * @param skippedPrefixes binary-name prefixes of classes left untouched, e.g. {@code com.example.manual.}
     */
    public TrackWritesPlugin(List<String> skippedPrefixes) {
        this.skipped = List.copyOf(skippedPrefixes);
    }

    @Override
    public boolean matches(TypeDescription target) {
        String name = target.getName();
        return !target.isInterface()
                && skipped.stream().noneMatch(name::startsWith)
                && !StateTypes.hasAnnotation(target, StateTypes.ENHANCED);
    }

    @Override
    public DynamicType.Builder<?> apply(
            DynamicType.Builder<?> builder, TypeDescription type, ClassFileLocator classFileLocator) {
        // Every state class is marked, @Replicated or an intermediate superclass: registration checks the
        // whole hierarchy below StateObject.
        return builder.visit(new Wrapper(types, StateTypes.isStateObject(type)));
    }

    @Override
    public void close() throws IOException {}

    /** Wraps the class writer of one transformed class. */
    private record Wrapper(StateTypes types, boolean replicated) implements AsmVisitorWrapper {
        @Override
        public int mergeWriter(int flags) {
            return flags;
        }

        @Override
        public int mergeReader(int flags) {
            return flags;
        }

        @Override
        public ClassVisitor wrap(
                TypeDescription instrumentedType,
                ClassVisitor classVisitor,
                Implementation.Context implementationContext,
                TypePool typePool,
                FieldList<FieldDescription.InDefinedShape> fields,
                MethodList<?> methods,
                int writerFlags,
                int readerFlags) {
            return new TrackingClassVisitor(classVisitor, typePool, types, replicated);
        }
    }

    /** Rewrites the methods of one class and marks the class when it is state or writes state. */
    private static final class TrackingClassVisitor extends ClassVisitor {
        private final TypePool pool;
        private final StateTypes types;
        private final boolean replicated;
        private boolean rewrote;

        TrackingClassVisitor(ClassVisitor delegate, TypePool pool, StateTypes types, boolean replicated) {
            super(Opcodes.ASM9, delegate);
            this.pool = pool;
            this.types = types;
            this.replicated = replicated;
        }

        @Override
        public MethodVisitor visitMethod(
                int access, String name, String descriptor, String signature, String[] exceptions) {
            MethodVisitor delegate = super.visitMethod(access, name, descriptor, signature, exceptions);
            return delegate == null ? null : new TrackingMethodVisitor(delegate);
        }

        @Override
        public void visitEnd() {
            if (replicated || rewrote) {
                // ClassWriter keeps annotations in a list, so adding one after the methods is fine.
                super.visitAnnotation(StateTypes.ENHANCED_DESCRIPTOR, true).visitEnd();
            }
            super.visitEnd();
        }

        /** Inserts the barrier before each tracked PUTFIELD, keeping the operand stack as it was. */
        private final class TrackingMethodVisitor extends MethodVisitor {
            private boolean inserted;

            TrackingMethodVisitor(MethodVisitor delegate) {
                super(Opcodes.ASM9, delegate);
            }

            @Override
            public void visitFieldInsn(int opcode, String owner, String name, String descriptor) {
                if (opcode == Opcodes.PUTFIELD && types.isTracked(pool, owner, name)) {
                    // Stack: object, value. Bring a copy of the object to the top, call the barrier on it.
                    if (Type.getType(descriptor).getSize() == 1) {
                        super.visitInsn(Opcodes.SWAP); // value, object
                        super.visitInsn(Opcodes.DUP_X1); // object, value, object
                    } else {
                        super.visitInsn(Opcodes.DUP2_X1); // value, object, value
                        super.visitInsn(Opcodes.POP2); // value, object
                        super.visitInsn(Opcodes.DUP_X2); // object, value, object
                    }
                    super.visitMethodInsn(Opcodes.INVOKESTATIC, BARRIER_OWNER, BARRIER_NAME, BARRIER_DESCRIPTOR, false);
                    inserted = true;
                    rewrote = true;
                }
                super.visitFieldInsn(opcode, owner, name, descriptor);
            }

            @Override
            public void visitMaxs(int maxStack, int maxLocals) {
                // The shuffles above need at most two more slots than the method had.
                super.visitMaxs(inserted ? maxStack + 2 : maxStack, maxLocals);
            }
        }
    }
}

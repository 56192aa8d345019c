package dev.postbox.chaos.fleet;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The java command of a worker process. Start-up is CPU-bound class loading on small, busy boxes,
 * so workers run C1 only with the serial GC, from this module's test classes packed into a jar
 * ({@link WorkerClasspath}), and with an AppCDS archive of a started worker's classes when one has
 * been made ({@link #withClassArchive}).
 */
public final class WorkerJvm {

    private static final Logger log = LoggerFactory.getLogger(WorkerJvm.class);

    private final String classPath;
    private final Path archive;

    private WorkerJvm(String classPath, Path archive) {
        this.classPath = classPath;
        this.archive = archive;
    }

    /** Workers on the test JVM's class path (directories packed into jars under {@code dir}). */
    public static WorkerJvm forTestClasses(Path dir) throws IOException {
        WorkerJvm jvm = new WorkerJvm(WorkerClasspath.build(dir), null);
        Path archive = jvm.archivePath(dir);
        return Files.isRegularFile(archive) ? new WorkerJvm(jvm.classPath, archive) : jvm;
    }

    /**
     * This JVM with an AppCDS archive of the classes {@code mainClass} loads up to READY, made once
     * per class path by a training run with {@code properties} that exits after READY ({@code
     * -Dchaos.exitAfterReady=true}). Returns this JVM unchanged when the archive cannot be made.
     */
    public WorkerJvm withClassArchive(
            Path dir, String logbackConfig, Map<String, String> properties, String mainClass, Path trainingLog) {
        if (archive != null) {
            return this;
        }
        Path target = archivePath(dir);
        long t0 = System.nanoTime();
        List<String> cmd = command(logbackConfig, properties, mainClass);
        cmd.add(cmd.size() - 1, "-XX:ArchiveClassesAtExit=" + target);
        cmd.add(cmd.size() - 1, "-Dchaos.exitAfterReady=true");
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectErrorStream(true)
                    .redirectOutput(trainingLog.toFile())
                    .start();
            if (!p.waitFor(180, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
        } catch (IOException | InterruptedException e) {
            log.warn("worker class archive training failed", e);
        }
        boolean made = Files.isRegularFile(target);
        log.info("worker class archive {}: {} in {} ms", target, made ? "created" : "NOT created", ms(t0));
        return made ? new WorkerJvm(classPath, target) : this;
    }

    /** {@code java <options> -cp <class path> -D<key>=<value>... <mainClass>}. */
    public List<String> command(String logbackConfig, Map<String, String> properties, String mainClass) {
        List<String> cmd = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx160m",
                "-Xss512k",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-XX:-UsePerfData",
                "-Xlog:cds=off",
                "-Xlog:cds+dynamic=off",
                "-Dlogback.configurationFile=" + logbackConfig,
                "-Dlogback.statusListenerClass=ch.qos.logback.core.status.NopStatusListener"));
        if (archive != null) {
            cmd.add("-XX:SharedArchiveFile=" + archive);
        }
        cmd.add("-cp");
        cmd.add(classPath);
        properties.forEach((k, v) -> cmd.add("-D" + k + "=" + v));
        cmd.add(mainClass);
        return cmd;
    }

    /**
     * The archive's file, named after the JVM, the class path and each entry's size and modification
     * time: a jar installed again under the same path (a rebuild between two runs) makes the JVM refuse
     * the old archive, and with {@code -Xshare:auto} it would do so silently, starting every worker
     * without it (about twice the CPU per start).
     */
    private Path archivePath(Path dir) {
        StringBuilder key = new StringBuilder(System.getProperty("java.home")).append(classPath);
        for (String entry : classPath.split(File.pathSeparator)) {
            File f = new File(entry);
            key.append('|').append(f.length()).append('@').append(f.lastModified());
        }
        String id = Integer.toHexString(key.toString().hashCode());
        return dir.resolve("chaos-worker-" + id + ".jsa").toAbsolutePath();
    }

    private static long ms(long t0) {
        return (System.nanoTime() - t0) / 1_000_000;
    }
}

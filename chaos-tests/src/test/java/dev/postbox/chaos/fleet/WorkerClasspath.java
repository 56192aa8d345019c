package dev.postbox.chaos.fleet;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * The worker processes' class path: the test JVM's own, with every directory entry (the module's
 * compiled test classes) packed into a jar named after its content. Two reasons: an AppCDS archive
 * can only hold classes from jars ("Cannot have non-empty directory in paths"), and workers must not
 * load classes from a directory that a concurrent build may be rewriting.
 */
public final class WorkerClasspath {

    private WorkerClasspath() {}

    public static synchronized String build(Path dir) throws IOException {
        List<String> entries = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                entries.add(pack(p, dir).toString());
            } else if (!entry.isBlank()) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static Path pack(Path classes, Path dir) throws IOException {
        List<Path> files;
        try (Stream<Path> walk = Files.walk(classes)) {
            files = walk.filter(Files::isRegularFile).sorted().toList();
        }
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
        List<byte[]> contents = new ArrayList<>(files.size());
        for (Path f : files) {
            byte[] bytes = Files.readAllBytes(f);
            contents.add(bytes);
            digest.update(classes.relativize(f).toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
            digest.update(bytes);
        }
        String hash = HexFormat.of().formatHex(digest.digest()).substring(0, 12);
        Path jar = dir.resolve("chaos-worker-" + classes.getFileName() + "-" + hash + ".jar")
                .toAbsolutePath();
        if (Files.isRegularFile(jar)) {
            return jar; // unchanged content: same jar, so a class archive made for it stays valid
        }
        Files.createDirectories(dir);
        Path tmp = Files.createTempFile(dir, "chaos-worker-", ".jar.tmp");
        try (OutputStream out = Files.newOutputStream(tmp);
                JarOutputStream jos = new JarOutputStream(out)) {
            for (int i = 0; i < files.size(); i++) {
                String name = classes.relativize(files.get(i)).toString().replace(File.separatorChar, '/');
                JarEntry e = new JarEntry(name);
                e.setTime(0);
                jos.putNextEntry(e);
                jos.write(contents.get(i));
                jos.closeEntry();
            }
        }
        Files.move(tmp, jar, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return jar;
    }
}

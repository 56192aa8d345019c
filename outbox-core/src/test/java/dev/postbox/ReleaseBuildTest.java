package dev.postbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;

/**
 * The build's promises about published artifacts, read from the POMs: the BOM lists exactly the
 * modules that are deployed, and each of them names its module.
 */
class ReleaseBuildTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    @Test
    void theBomListsExactlyThePublishedModulesAndEachNamesItsModule() throws Exception {
        Map<String, Document> published = new LinkedHashMap<>();
        for (String module : children(parse(ROOT.resolve("pom.xml")).getDocumentElement(), "modules", "module")) {
            Document pom = parse(ROOT.resolve(module).resolve("pom.xml"));
            String artifactId = text(pom.getDocumentElement(), "artifactId");
            if (!"true".equals(property(pom, "maven.deploy.skip")) && !"postbox-bom".equals(artifactId)) {
                published.put(artifactId, pom);
            }
        }
        assertThat(published.keySet())
                .contains("postbox-db", "postbox-core", "postbox-delivery-http", "postbox-spring-boot-starter")
                .doesNotContain("postbox-chaos-tests", "postbox-benchmarks", "postbox-webhook-demo");

        Element bom = parse(ROOT.resolve("bom/pom.xml")).getDocumentElement();
        List<String> listed = new ArrayList<>();
        NodeList dependencies = bom.getElementsByTagName("dependency");
        for (int i = 0; i < dependencies.getLength(); i++) {
            listed.add(text((Element) dependencies.item(i), "artifactId"));
        }
        assertThat(listed).as("bom/pom.xml").containsExactlyInAnyOrderElementsOf(published.keySet());

        published.forEach((artifactId, pom) -> assertThat(property(pom, "automatic-module-name"))
                .as(artifactId + " sets automatic-module-name")
                .startsWith("dev.postbox."));
    }

    private static Document parse(Path pom) throws Exception {
        assertThat(pom).exists();
        try (var in = Files.newInputStream(pom)) {
            return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(in);
        }
    }

    private static List<String> children(Element root, String container, String child) {
        List<String> values = new ArrayList<>();
        for (Node n = root.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(container)) {
                NodeList items = e.getElementsByTagName(child);
                for (int i = 0; i < items.getLength(); i++) {
                    values.add(items.item(i).getTextContent().trim());
                }
            }
        }
        return values;
    }

    private static String text(Element parent, String tag) {
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals(tag)) {
                return e.getTextContent().trim();
            }
        }
        return null;
    }

    private static String property(Document pom, String name) {
        for (Node n = pom.getDocumentElement().getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e && e.getTagName().equals("properties")) {
                return text(e, name);
            }
        }
        return null;
    }
}

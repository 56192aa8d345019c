package dev.postbox.console;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Headless Chromium from Debian's packages, driven by Selenium without Selenium Manager (the
 * driver and browser paths are given, nothing is downloaded). Under CI ({@code CI=true}) a missing
 * Chromium fails the tests; elsewhere it skips them.
 */
final class Browser implements AutoCloseable {

    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    private static final Duration LOAD_TIMEOUT = Duration.ofSeconds(30);

    final WebDriver driver;
    private final Path profile;
    private final String base;

    private Browser(WebDriver driver, Path profile, String base) {
        this.driver = driver;
        this.profile = profile;
        this.base = base;
    }

    static Browser open(String base) throws IOException {
        boolean present = Files.isExecutable(CHROMIUM) && Files.isExecutable(CHROMEDRIVER);
        if (!present && "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException("CI=true but " + CHROMIUM + " or " + CHROMEDRIVER + " is missing: install"
                    + " Debian's chromium and chromium-driver (.ci/run does)");
        }
        Assumptions.assumeTrue(present, "Chromium is not installed (apt-get install chromium chromium-driver)");
        Path profile = Files.createTempDirectory("postbox-console-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments(
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--window-size=1440,1000",
                "--user-data-dir=" + profile);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort()
                .build();
        WebDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        return new Browser(driver, profile, base);
    }

    void get(String path) {
        driver.get(base + path);
    }

    void login(String user) {
        get("/login");
        driver.findElement(By.name("username")).sendKeys(user);
        driver.findElement(By.name("password")).sendKeys(TestSecurity.PASSWORD);
        clickAndLoad(driver.findElement(By.cssSelector("button[type=submit]")));
    }

    /**
     * Clicks an element that leads to a new page and returns once that page has loaded. Without
     * the wait, the next lookup can read the page being replaced and fail with a stale element.
     */
    void clickAndLoad(WebElement element) {
        WebElement oldPage = driver.findElement(By.tagName("html"));
        element.click();
        WebDriverWait wait = new WebDriverWait(driver, LOAD_TIMEOUT);
        wait.until(d -> replaced(oldPage));
        wait.until(d -> "complete".equals(((JavascriptExecutor) d).executeScript("return document.readyState")));
    }

    /**
     * Whether an element of the page being replaced is gone. Chromium 156.0.8078.114 sometimes
     * answers the check on such an element with "Node with given id does not belong to the document"
     * instead of a stale element reference (seen in a CI check): the same fact, worded otherwise.
     */
    private static boolean replaced(WebElement oldElement) {
        try {
            oldElement.isEnabled();
            return false;
        } catch (StaleElementReferenceException e) {
            return true;
        } catch (WebDriverException e) {
            String message = e.getMessage();
            if (message != null && message.contains("does not belong to the document")) {
                return true;
            }
            throw e;
        }
    }

    void logout() {
        driver.manage().deleteAllCookies();
    }

    WebElement find(String css) {
        return driver.findElement(By.cssSelector(css));
    }

    List<WebElement> all(String css) {
        return driver.findElements(By.cssSelector(css));
    }

    String text() {
        return driver.findElement(By.tagName("body")).getText();
    }

    /** The page's HTML as the browser holds it (attributes and hidden elements included). */
    String source() {
        return driver.getPageSource();
    }

    /** Saves the viewport as {@code <postbox.console.screenshots>/<name>.png}. */
    void screenshot(String name) throws IOException {
        Path dir = Path.of(System.getProperty("postbox.console.screenshots", "target/screenshots"));
        Files.createDirectories(dir);
        File shot = ((ChromeDriver) driver).getScreenshotAs(OutputType.FILE);
        Files.copy(shot.toPath(), dir.resolve(name + ".png"), StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * POSTs a form from the page's origin with the session's cookies, as a forged or scripted request
     * would; returns the status and body.
     */
    @SuppressWarnings("unchecked")
    Map<String, Object> post(String path, Map<String, String> form, Map<String, String> headers) {
        Object result = ((JavascriptExecutor) driver)
                .executeAsyncScript(
                        "const [url, form, headers, done] = arguments;"
                                + "fetch(url, {method: 'POST', headers: Object.assign({'Content-Type':"
                                + " 'application/x-www-form-urlencoded'}, headers), body: new URLSearchParams(form),"
                                + " redirect: 'manual', credentials: 'same-origin'})"
                                + ".then(r => r.text().then(t => done({status: r.status, body: t})))"
                                + ".catch(e => done({status: -1, body: String(e)}));",
                        base + path,
                        form,
                        headers);
        return (Map<String, Object>) result;
    }

    /** GETs a text resource with the session's cookies. */
    String fetchText(String path) {
        return (String) ((JavascriptExecutor) driver)
                .executeAsyncScript(
                        "const [url, done] = arguments; fetch(url, {credentials: 'same-origin'})"
                                + ".then(r => r.text()).then(done).catch(e => done(String(e)));",
                        base + path);
    }

    @Override
    public void close() throws IOException {
        driver.quit();
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        }
    }
}

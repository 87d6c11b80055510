//! `viz.html`: one self-contained page (inline CSS, JavaScript and the
//! recording; no network, no server) that animates a [`super::Recording`].
//! The viewer's sources are `viewer.html`, `viewer.css`, `viewer.js` (data,
//! geometry, drawing) and `viewer-ui.js` (controls, node panel, chart,
//! the `window.manetlabViz` debug API) beside this file; they are compiled
//! into the binary.

const TEMPLATE: &str = include_str!("viewer.html");
const CSS: &str = include_str!("viewer.css");
const JS: &str = include_str!("viewer.js");
const UI_JS: &str = include_str!("viewer-ui.js");

/// The page for `json` (a recording as written to `viz.json`).
pub fn html(json: &str) -> String {
    // Inside <script type="application/json"> only "</" could end the
    // element early; "<\/" is the same JSON string.
    let data = json.replace("</", "<\\/").replace("<!--", "<\\u0021--");
    let mut out = String::with_capacity(TEMPLATE.len() + CSS.len() + JS.len() + UI_JS.len() + data.len());
    let (head, rest) = TEMPLATE.split_once("/*CSS*/").expect("template has /*CSS*/");
    let (mid, rest) = rest.split_once("__DATA__").expect("template has __DATA__");
    let (mid2, tail) = rest.split_once("/*JS*/").expect("template has /*JS*/");
    out.push_str(head);
    out.push_str(CSS);
    out.push_str(mid);
    out.push_str(&data);
    out.push_str(mid2);
    out.push_str(JS);
    out.push('\n');
    out.push_str(UI_JS);
    out.push_str(tail);
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn data_cannot_close_the_script_element() {
        let page = super::html(r#"{"scenario":"a</script><script>alert(1)</script>"}"#);
        let start = page.find("id=\"viz-data\"").unwrap();
        let body = &page[start..];
        let end = body.find("</script>").unwrap();
        assert!(body[..end].contains(r#"a<\/script><script>alert(1)<\/script>"#));
        assert!(!page.contains("http://") && !page.contains("https://"), "the page loads nothing from the network");
    }
}

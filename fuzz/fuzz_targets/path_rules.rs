//! Any text as a path inside an approved folder: the rules never panic, and a path they accept
//! is relative and made only of plain, visible names — no `..`, `.`, empty part, separator or
//! NUL — so nothing the jail opens can name anything outside its root by text.
#![no_main]

use aware_sandbox::files::components;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(raw) = std::str::from_utf8(data) else { return };
    for allow_empty in [false, true] {
        if let Ok(parts) = components(raw, allow_empty) {
            assert!(!raw.starts_with('/'), "absolute path accepted: {raw:?}");
            for p in &parts {
                assert!(!p.is_empty() && *p != "." && *p != "..", "{raw:?} -> {parts:?}");
                assert!(!p.contains('/') && !p.contains('\0') && !p.starts_with('.'), "{raw:?} -> {parts:?}");
            }
        }
    }
});

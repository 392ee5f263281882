//! Any bytes as the client's message on `Chat` (`ChatRequest`, the ClientMessage of the design):
//! decoding never panics, and what decodes re-encodes to a message that decodes the same.
#![no_main]

use aware_proto::v1::ChatRequest;
use libfuzzer_sys::fuzz_target;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    if let Ok(msg) = ChatRequest::decode(data) {
        let again = ChatRequest::decode(msg.encode_to_vec().as_slice()).expect("re-encoded message decodes");
        assert_eq!(again, msg);
    }
});

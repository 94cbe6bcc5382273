//! The SOAP/XML notification server (`oldNotifFormat` = 1), at `/notifications`: SOAP 1.1
//! envelopes as SOAP::Lite sends them (a namespaced body element named after the operation,
//! its arguments as child elements, the XML document as an escaped string). Operations:
//! `newNotification(xml)` -> number inserted, `deleteNotification(uid, ref)` -> number deleted.
//! Every failure is a SOAP Fault whose faultstring says what was wrong (HTTP 500, as SOAP 1.1
//! requires). A document type declaration is refused before any parser runs, so no entity is
//! ever declared, expanded or fetched: entity bombs and external entities fault at once.
use super::audit::{audit_delete, audit_insert};
use super::model::{check_xml, parse_xml, without_declaration, xml_escape};
use super::store::{insert_all, NotificationStore};
use crate::error::{Error, Result};
use crate::http::{Method, Request, Response};
use minidom::Element;

/// SOAP 1.1 envelope namespace.
const SOAP_ENV: &str = "http://schemas.xmlsoap.org/soap/envelope/";
/// The service namespace LemonLDAP::NG answers in.
const SERVICE_NS: &str = "urn:Lemonldap::NG::Common::PSGI::SOAPService";
/// Namespace given to un-namespaced elements so that minidom accepts them.
const NO_NS: &str = "urn:limette:none";

/// A decoded SOAP call: the operation and its string arguments, in order.
#[derive(Debug, PartialEq, Eq)]
pub struct Call {
    /// The body element's local name.
    pub operation: String,
    /// The text of each argument element.
    pub args: Vec<String>,
}

/// Serves one SOAP request.
pub fn handle(store: &dyn NotificationStore, req: &Request) -> Result<Response> {
    if req.method != Method::Post || req.header("soapaction").is_none() {
        return Err(Error::bad("SOAP requests only"));
    }
    if req.body.is_empty() {
        return Err(Error::LengthRequired);
    }
    let call = decode(&req.body).map_err(|m| fault(true, m))?;
    let count = dispatch(store, &call).map_err(to_fault)?;
    let (n, ip) = (count.to_string(), req.ip());
    match (call.operation.as_str(), call.args.as_slice()) {
        ("newNotification", _) => audit_insert(&n, "soap", &ip),
        ("deleteNotification", [uid, reference, ..]) => {
            audit_delete(uid, reference, &n, "soap", &ip)
        }
        _ => {}
    }
    Ok(Response::bytes(
        200,
        "text/xml; charset=utf-8",
        encode(&call.operation, count),
    ))
}

/// Parses an envelope into a call; the error text is the faultstring.
pub fn decode(body: &[u8]) -> std::result::Result<Call, String> {
    let text = std::str::from_utf8(body).map_err(|_| "The request is not UTF-8".to_string())?;
    check_xml(text).map_err(|e| e.0)?;
    let root = Element::from_reader_with_prefixes(
        without_declaration(text).as_bytes(),
        Some(NO_NS.to_string()),
    )
    .map_err(|e| format!("The request is not well-formed XML: {e}"))?;
    if !root.is("Envelope", SOAP_ENV) {
        return Err("Can't find root element in the message (not a SOAP 1.1 envelope)".into());
    }
    let body = root
        .get_child("Body", SOAP_ENV)
        .ok_or("The SOAP envelope has no Body")?;
    let op = body
        .children()
        .next()
        .ok_or("The SOAP Body holds no operation")?;
    Ok(Call {
        operation: op.name().to_string(),
        args: op.children().map(Element::text).collect(),
    })
}

/// Runs a call; the count of notifications inserted or deleted.
pub fn dispatch(store: &dyn NotificationStore, call: &Call) -> Result<usize> {
    let arg = |i: usize, what: &str| {
        call.args
            .get(i)
            .filter(|a| !a.trim().is_empty())
            .ok_or_else(|| Error::bad(format!("{} needs {what}", call.operation)))
    };
    match call.operation.as_str() {
        "newNotification" => {
            let list = parse_xml(arg(0, "an XML document")?)?;
            insert_all(store, &list)
        }
        "deleteNotification" => store.delete(arg(0, "a uid")?, arg(1, "a reference")?),
        other => Err(Error::bad(format!("{other} is not an authorized function"))),
    }
}

/// The response envelope, in SOAP::Lite's shape.
pub fn encode(operation: &str, count: usize) -> String {
    format!(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?><soap:Envelope soap:encodingStyle=\"http://schemas.xmlsoap.org/soap/encoding/\" xmlns:soap=\"{SOAP_ENV}\" xmlns:soapenc=\"http://schemas.xmlsoap.org/soap/encoding/\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\"><soap:Body><{op}Response xmlns=\"{SERVICE_NS}\"><result xsi:type=\"xsd:int\">{count}</result></{op}Response></soap:Body></soap:Envelope>",
        op = xml_escape(operation)
    )
}

fn fault(client: bool, message: impl Into<String>) -> Error {
    Error::SoapFault {
        client,
        message: message.into(),
    }
}

/// Any failure becomes a fault: what the client did wrong is said, internal detail is logged.
fn to_fault(e: Error) -> Error {
    match e {
        Error::BadRequest(m) | Error::Conflict(m) | Error::NotFound(m) => fault(true, m),
        Error::SoapFault { .. } => e,
        other => {
            crate::log::error(&format!("SOAP notification server: {other}"));
            fault(false, "The notification could not be stored (server error)")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENV: &str = r#"<?xml version="1.0" encoding="UTF-8"?><soap:Envelope soap:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/" xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/" xmlns:soapenc="http://schemas.xmlsoap.org/soap/encoding/" xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soap:Body><deleteNotification xmlns="urn:Lemonldap::NG::Common::PSGI::SOAPService"><c-gensym3 xsi:type="xsd:string">dwho</c-gensym3><c-gensym5 xsi:type="xsd:string">REF&amp;1</c-gensym5></deleteNotification></soap:Body></soap:Envelope>"#;

    #[test]
    fn decodes_soap_lite_envelopes() {
        let c = decode(ENV.as_bytes()).unwrap();
        let standalone = ENV.replace(
            "encoding=\"UTF-8\"?>",
            "encoding=\"UTF-8\" standalone=\"no\"?>\n",
        );
        assert_eq!(decode(standalone.as_bytes()).unwrap(), c);
        assert_eq!(
            c,
            Call {
                operation: "deleteNotification".into(),
                args: vec!["dwho".into(), "REF&1".into()]
            }
        );
    }

    #[test]
    fn refuses_what_is_not_an_envelope() {
        assert!(decode(b"<x/>").unwrap_err().contains("root element"));
        assert!(decode(b"not xml").unwrap_err().contains("well-formed"));
        let bomb = r#"<?xml version="1.0"?><!DOCTYPE e [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><e>&b;</e>"#;
        assert!(decode(bomb.as_bytes()).unwrap_err().contains("DOCTYPE"));
        let ext = r#"<!DOCTYPE e [<!ENTITY x SYSTEM "file:///etc/passwd">]><e>&x;</e>"#;
        assert!(decode(ext.as_bytes()).unwrap_err().contains("DOCTYPE"));
    }

    #[test]
    fn response_shape() {
        let r = encode("newNotification", 2);
        assert!(r.contains(r#"<newNotificationResponse xmlns="urn:Lemonldap::NG::Common::PSGI::SOAPService"><result xsi:type="xsd:int">2</result></newNotificationResponse>"#));
    }
}

//! SOAP/XML notification server (old format): placeholder until built below.

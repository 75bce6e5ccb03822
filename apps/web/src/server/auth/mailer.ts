// Account mail goes through the mailer every process shares (the gateway sends approval requests with it).
export { createMailer, sendInBackground, type Mail, type Mailer } from "@switchboard/runtime/mailer";

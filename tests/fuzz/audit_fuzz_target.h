// The auditor's fuzz targets' rule (gate_ledger, gate_scope, gtest_xml, provenance_json): a parser
// of the auditor rejects bad input only with pstrain::audit::AuditError (auditor/report/audit_error.h).
#pragma once

#include "fuzz_target.h"
#include "report/audit_error.h"

namespace pstrain::fuzz {

// Runs `parse`, swallowing AuditError only: a pstrain::InputError (a trainer library's rejection the
// auditor's parser did not translate) escapes like any other exception and is a crash.
template <class Parse>
void ExpectOnlyAuditErrors(Parse&& parse) {
  ExpectOnlyRejections<pstrain::audit::AuditError>(parse);
}

}  // namespace pstrain::fuzz

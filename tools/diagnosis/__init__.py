"""Paste-to-diagnose: read what a rented GPU server prints and say what is wrong.

Layout (one job per module):
- `text`       normalise a paste (CRLF, ANSI colours, size limits, binary rejection)
- `parsers/`   one module per input kind (nvidia-smi, dmesg, NCCL, nccl-tests, ...)
- `detect`     decide which parsers apply to a paste (one paste may mix several)
- `findings`   the report model (Finding, Inventory, XidEvent, DiagnosisReport)
- `xid`        the NVIDIA Xid catalog from knowledge/xid.yaml
- `nvlink5`    NVIDIA's "XID 144-150 Decode" sheet for NVLink5 Xids
- `rules/`     the decision tree and cross-checks that turn parsed data into findings
               (context, smi, kernel, pci, versions, comms, host, runtime, fabric, health, narrative)
- `policy`     the severity policy, in one place (knowledge/diagnosis/severity_policy.yaml)
- `incidents`  join findings into incidents; verdict, next action and provider ticket
- `report`     paste → DiagnosisReport (the engine behind the diagnose_logs tool)
- `acceptance` verify a delivery-checklist output against what was rented
- `checklist`  the ready-to-run acceptance bash script

Entry points: `tools.diagnosis.report.diagnose_text`, the registry tools in `tools.diagnosis.tool`
(`diagnose_logs`, `delivery_checklist`) and `tools.diagnosis.detect` for "is this a paste".
"""

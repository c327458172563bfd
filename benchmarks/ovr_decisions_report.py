"""Report on ``ovr_decisions.py``'s saved decision values: per class the test documents, how often
it is predicted, its recall, and its model's decisions on positives and negatives (training and
test); how many documents no model calls positive; and the accuracy after calibrating the C
decisions on the training documents (z-scores by the negatives, Platt scaling per model, a
multinomial logistic regression on all C), to tell miscalibration from overfitting.

    python benchmarks/ovr_decisions_report.py OUT.npz
"""
import sys, numpy as np
f = np.load(sys.argv[1], allow_pickle=True)
ot, orr, yt, y, classes = f["omega_te"], f["omega_tr"], f["yt"], f["y"], f["classes"]
C = len(classes)
ti = np.searchsorted(classes, yt); ri = np.searchsorted(classes, y)
pred = ot.argmax(1)
print("test acc", (pred == ti).mean(), "train acc (inferred)", (orr.argmax(1) == ri).mean())
print("class  n_test  predicted  recall  | train: pos mean/sd  neg mean/sd | test: pos mean  neg mean | eta min/max")
eta = f["eta"]
for c in range(C):
    pos, neg = orr[ri == c, c], orr[ri != c, c]
    tp, tn = ot[ti == c, c], ot[ti != c, c]
    print(f"{classes[c][:22]:22s} {np.sum(ti == c):5d} {np.sum(pred == c):6d} {np.mean(pred[ti == c] == c):.3f} | "
          f"{pos.mean():7.1f} {pos.std():6.1f} {neg.mean():7.1f} {neg.std():6.1f} | {tp.mean():7.1f} {tn.mean():7.1f} | {eta[c].min():6.1f} {eta[c].max():6.1f}")
print("no model positive on test:", np.mean(ot.max(1) < 0), " on train:", np.mean(orr.max(1) < 0))
# calibration by train statistics (diagnostic only)
mu, sd = np.array([orr[ri != c, c].mean() for c in range(C)]), np.array([orr[ri != c, c].std() for c in range(C)])
print("z-scored by train negatives:", ((ot - mu) / sd).argmax(1).__eq__(ti).mean())
from sklearn.linear_model import LogisticRegression
P = np.column_stack([LogisticRegression().fit(orr[:, [c]], ri == c).predict_proba(ot[:, [c]])[:, 1] for c in range(C)])
print("Platt per model:", (P.argmax(1) == ti).mean())
lr = LogisticRegression(max_iter=2000).fit(orr, ri)
print("multinomial LR on the 20 train omegas:", (lr.predict(ot) == ti).mean())

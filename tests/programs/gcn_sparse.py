"""A graph convolutional network on a sparse adjacency matrix, as pygcn's and pyGAT's train.py do: a scipy COO
matrix, row-normalised, turned into ``torch.sparse_coo_tensor``; GraphConvolution layers with
``torch.spmm(adj, support)``; a graph attention layer with ``nn.Parameter(torch.empty(size=(in, out)))`` and the
dense ``torch.where(adj > 0, e, -9e15)`` mask; Adam with weight decay, log_softmax and nll_loss on train/val
masks, and ``accuracy`` with ``output.max(1)[1].type_as(labels)``.

A small random graph from numpy's generator; the initial weights from --init (written by the first run, read by
the next), so two runs print the same numbers whatever their torch's RNG. Dropout is 0, as its mask is random.
"""
import argparse
import math
import os

import numpy as np
import scipy.sparse as sp
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

parser = argparse.ArgumentParser()
parser.add_argument("--init", required=True, help="initial weights: loaded if the file exists, else saved there")
parser.add_argument("--epochs", type=int, default=4)
parser.add_argument("--dropout", type=float, default=0.0)
args = parser.parse_args()


def normalize(mx):
    """Row-normalize sparse matrix"""
    rowsum = np.array(mx.sum(1))
    r_inv = np.power(rowsum, -1).flatten()
    r_inv[np.isinf(r_inv)] = 0.
    return sp.diags(r_inv).dot(mx)


def sparse_mx_to_torch_sparse_tensor(sparse_mx):
    """Convert a scipy sparse matrix to a torch sparse tensor."""
    sparse_mx = sparse_mx.tocoo().astype(np.float32)
    indices = torch.from_numpy(np.vstack((sparse_mx.row, sparse_mx.col)).astype(np.int64))
    values = torch.from_numpy(sparse_mx.data)
    return torch.sparse_coo_tensor(indices, values, torch.Size(sparse_mx.shape))


def accuracy(output, labels):
    preds = output.max(1)[1].type_as(labels)
    correct = preds.eq(labels).double()
    return correct.sum() / len(labels)


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features, bias=True):
        super().__init__()
        self.weight = nn.Parameter(torch.FloatTensor(in_features, out_features))
        self.bias = nn.Parameter(torch.FloatTensor(out_features)) if bias else None
        self.reset_parameters()

    def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.uniform_(-stdv, stdv)
        if self.bias is not None:
            self.bias.data.uniform_(-stdv, stdv)

    def forward(self, input, adj):
        support = torch.mm(input, self.weight)
        output = torch.spmm(adj, support)
        return output + self.bias if self.bias is not None else output


class GraphAttentionLayer(nn.Module):
    def __init__(self, in_features, out_features, alpha=0.2):
        super().__init__()
        self.W = nn.Parameter(torch.empty(size=(in_features, out_features)))
        nn.init.xavier_uniform_(self.W.data, gain=1.414)
        self.a = nn.Parameter(torch.empty(size=(2 * out_features, 1)))
        nn.init.xavier_uniform_(self.a.data, gain=1.414)
        self.out_features = out_features
        self.leakyrelu = nn.LeakyReLU(alpha)

    def forward(self, h, adj):
        Wh = torch.mm(h, self.W)
        e = self.leakyrelu(torch.matmul(Wh, self.a[:self.out_features, :])
                           + torch.matmul(Wh, self.a[self.out_features:, :]).T)
        zero_vec = -9e15 * torch.ones_like(e)
        attention = F.softmax(torch.where(adj > 0, e, zero_vec), dim=1)
        return F.elu(torch.matmul(attention, Wh))


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.att = GraphAttentionLayer(nhid, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj, dense_adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = x + self.att(x, dense_adj)
        return F.log_softmax(self.gc2(x, adj), dim=1)


rng = np.random.default_rng(5)
n_nodes, n_feat, n_class = 24, 6, 3
labels_np = rng.integers(0, n_class, n_nodes)
features_np = (np.eye(n_class)[labels_np] @ rng.standard_normal((n_class, n_feat))
               + 0.5 * rng.standard_normal((n_nodes, n_feat))).astype(np.float32)
edges = rng.integers(0, n_nodes, size=(40, 2))
adj_sp = sp.coo_matrix((np.ones(len(edges)), (edges[:, 0], edges[:, 1])), shape=(n_nodes, n_nodes), dtype=np.float32)
adj_sp = adj_sp + adj_sp.T.multiply(adj_sp.T > adj_sp) - adj_sp.multiply(adj_sp.T > adj_sp)  # symmetric
adj_sp = normalize(adj_sp + sp.eye(adj_sp.shape[0]))

features = torch.FloatTensor(normalize(sp.csr_matrix(features_np)).todense())
labels = torch.LongTensor(labels_np)
adj = sparse_mx_to_torch_sparse_tensor(adj_sp)
dense_adj = adj.to_dense()
idx_train, idx_val = torch.LongTensor(range(12)), torch.LongTensor(range(12, 24))

model = GCN(nfeat=features.shape[1], nhid=8, nclass=n_class, dropout=args.dropout)
if os.path.exists(args.init):
    model.load_state_dict(torch.load(args.init))
else:
    torch.save(model.state_dict(), args.init)
optimizer = optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)
print(f"adjacency: {adj.is_sparse}, {adj._nnz()} stored entries")

for epoch in range(args.epochs):
    model.train()
    optimizer.zero_grad()
    output = model(features, adj, dense_adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    acc_train = accuracy(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    model.eval()
    output = model(features, adj, dense_adj)
    loss_val = F.nll_loss(output[idx_val], labels[idx_val])
    acc_val = accuracy(output[idx_val], labels[idx_val])
    print('Epoch: {:04d}'.format(epoch + 1), 'loss_train: {:.4f}'.format(loss_train.item()),
          'acc_train: {:.4f}'.format(acc_train.item()), 'loss_val: {:.4f}'.format(loss_val.item()),
          'acc_val: {:.4f}'.format(acc_val.item()))

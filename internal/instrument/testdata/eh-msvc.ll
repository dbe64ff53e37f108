; ModuleID = 'eh.cpp'
source_filename = "eh.cpp"
target datalayout = "e-m:w-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
target triple = "x86_64-pc-windows-msvc19.20.0"

%rtti.TypeDescriptor2 = type { i8**, i8*, [3 x i8] }
%eh.CatchableType = type { i32, i32, i32, i32, i32, i32, i32 }
%eh.CatchableTypeArray.1 = type { i32, [1 x i32] }
%eh.ThrowInfo = type { i32, i32, i32, i32 }
%struct.G = type { i32* }

$"??1G@@QEAA@XZ" = comdat any

$"??_R0H@8" = comdat any

$"_CT??_R0H@84" = comdat any

$_CTA1H = comdat any

$_TI1H = comdat any

@"??_7type_info@@6B@" = external constant i8*
@"??_R0H@8" = linkonce_odr global %rtti.TypeDescriptor2 { i8** @"??_7type_info@@6B@", i8* null, [3 x i8] c".H\00" }, comdat
@__ImageBase = external dso_local constant i8
@"_CT??_R0H@84" = linkonce_odr unnamed_addr constant %eh.CatchableType { i32 1, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (%rtti.TypeDescriptor2* @"??_R0H@8" to i64), i64 ptrtoint (i8* @__ImageBase to i64)) to i32), i32 0, i32 -1, i32 0, i32 4, i32 0 }, section ".xdata", comdat
@_CTA1H = linkonce_odr unnamed_addr constant %eh.CatchableTypeArray.1 { i32 1, [1 x i32] [i32 trunc (i64 sub nuw nsw (i64 ptrtoint (%eh.CatchableType* @"_CT??_R0H@84" to i64), i64 ptrtoint (i8* @__ImageBase to i64)) to i32)] }, section ".xdata", comdat
@_TI1H = linkonce_odr unnamed_addr constant %eh.ThrowInfo { i32 0, i32 0, i32 0, i32 trunc (i64 sub nuw nsw (i64 ptrtoint (%eh.CatchableTypeArray.1* @_CTA1H to i64), i64 ptrtoint (i8* @__ImageBase to i64)) to i32) }, section ".xdata", comdat

; Function Attrs: mustprogress uwtable
define dso_local noundef i32 @"?f@@YAHH@Z"(i32 noundef %x) #0 !dbg !8 {
entry:
  %x.addr = alloca i32, align 4
  %tmp = alloca i32, align 4
  store i32 %x, i32* %x.addr, align 4, !tbaa !14
  call void @llvm.dbg.declare(metadata i32* %x.addr, metadata !13, metadata !DIExpression()), !dbg !18
  %0 = load i32, i32* %x.addr, align 4, !dbg !19, !tbaa !14
  %cmp = icmp sgt i32 %0, 3, !dbg !19
  br i1 %cmp, label %if.then, label %if.end, !dbg !19

if.then:                                          ; preds = %entry
  %1 = load i32, i32* %x.addr, align 4, !dbg !20, !tbaa !14
  store i32 %1, i32* %tmp, align 4, !dbg !20, !tbaa !14
  %2 = bitcast i32* %tmp to i8*, !dbg !20
  call void @_CxxThrowException(i8* %2, %eh.ThrowInfo* @_TI1H) #5, !dbg !20
  unreachable, !dbg !20

if.end:                                           ; preds = %entry
  %3 = load i32, i32* %x.addr, align 4, !dbg !22, !tbaa !14
  ret i32 %3, !dbg !22
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.declare(metadata, metadata, metadata) #1

declare dso_local void @_CxxThrowException(i8*, %eh.ThrowInfo*)

; Function Attrs: mustprogress uwtable
define dso_local noundef i32 @"?g@@YAHH@Z"(i32 noundef %x) #0 personality i8* bitcast (i32 (...)* @__CxxFrameHandler3 to i8*) !dbg !23 {
entry:
  %retval = alloca i32, align 4
  %x.addr = alloca i32, align 4
  %d = alloca i32, align 4
  %guard = alloca %struct.G, align 8
  %cleanup.dest.slot = alloca i32, align 4
  %v = alloca i32, align 4
  store i32 %x, i32* %x.addr, align 4, !tbaa !14
  call void @llvm.dbg.declare(metadata i32* %x.addr, metadata !25, metadata !DIExpression()), !dbg !37
  %0 = bitcast i32* %d to i8*, !dbg !38
  call void @llvm.lifetime.start.p0i8(i64 4, i8* %0) #6, !dbg !38
  call void @llvm.dbg.declare(metadata i32* %d, metadata !26, metadata !DIExpression()), !dbg !38
  store i32 0, i32* %d, align 4, !dbg !38, !tbaa !14
  %1 = bitcast %struct.G* %guard to i8*, !dbg !39
  call void @llvm.lifetime.start.p0i8(i64 8, i8* %1) #6, !dbg !39
  call void @llvm.dbg.declare(metadata %struct.G* %guard, metadata !27, metadata !DIExpression()), !dbg !39
  %p = getelementptr inbounds %struct.G, %struct.G* %guard, i32 0, i32 0, !dbg !39
  store i32* %d, i32** %p, align 8, !dbg !39, !tbaa !40
  %2 = load i32, i32* %x.addr, align 4, !dbg !43, !tbaa !14
  %call = invoke noundef i32 @"?f@@YAHH@Z"(i32 noundef %2)
          to label %invoke.cont unwind label %catch.dispatch, !dbg !43

invoke.cont:                                      ; preds = %entry
  %3 = load i32, i32* %x.addr, align 4, !dbg !43, !tbaa !14
  %add = add nsw i32 %3, 1, !dbg !43
  %call2 = invoke noundef i32 @"?f@@YAHH@Z"(i32 noundef %add)
          to label %invoke.cont1 unwind label %catch.dispatch, !dbg !43

catch.dispatch:                                   ; preds = %invoke.cont, %entry
  %4 = catchswitch within none [label %catch] unwind label %ehcleanup, !dbg !45

catch:                                            ; preds = %catch.dispatch
  %5 = catchpad within %4 [%rtti.TypeDescriptor2* @"??_R0H@8", i32 0, i32* %v], !dbg !45
  call void @llvm.dbg.declare(metadata i32* %v, metadata !36, metadata !DIExpression()), !dbg !46
  %6 = load i32, i32* %v, align 4, !dbg !47, !tbaa !14
  %cmp = icmp sgt i32 %6, 8, !dbg !47
  br i1 %cmp, label %if.then, label %if.end, !dbg !47

if.then:                                          ; preds = %catch
  invoke void @_CxxThrowException(i8* null, %eh.ThrowInfo* null) #5 [ "funclet"(token %5) ]
          to label %unreachable unwind label %ehcleanup, !dbg !49

invoke.cont1:                                     ; preds = %invoke.cont
  %add3 = add nsw i32 %call, %call2, !dbg !43
  store i32 %add3, i32* %retval, align 4, !dbg !43
  store i32 1, i32* %cleanup.dest.slot, align 4
  br label %cleanup, !dbg !43

if.end:                                           ; preds = %catch
  %7 = load i32, i32* %v, align 4, !dbg !51, !tbaa !14
  %sub = sub nsw i32 0, %7, !dbg !51
  store i32 %sub, i32* %retval, align 4, !dbg !51
  store i32 1, i32* %cleanup.dest.slot, align 4
  catchret from %5 to label %catchret.dest, !dbg !52

catchret.dest:                                    ; preds = %if.end
  br label %cleanup

try.cont:                                         ; No predecessors!
  unreachable, !dbg !52

cleanup:                                          ; preds = %catchret.dest, %invoke.cont1
  call void @"??1G@@QEAA@XZ"(%struct.G* noundef nonnull align 8 dereferenceable(8) %guard) #6, !dbg !53
  %8 = bitcast %struct.G* %guard to i8*, !dbg !53
  call void @llvm.lifetime.end.p0i8(i64 8, i8* %8) #6, !dbg !53
  %9 = bitcast i32* %d to i8*, !dbg !53
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %9) #6, !dbg !53
  %10 = load i32, i32* %retval, align 4, !dbg !53
  ret i32 %10, !dbg !53

ehcleanup:                                        ; preds = %if.then, %catch.dispatch
  %11 = cleanuppad within none [], !dbg !53
  call void @"??1G@@QEAA@XZ"(%struct.G* noundef nonnull align 8 dereferenceable(8) %guard) #6 [ "funclet"(token %11) ], !dbg !53
  cleanupret from %11 unwind label %ehcleanup5, !dbg !53

ehcleanup5:                                       ; preds = %ehcleanup
  %12 = cleanuppad within none [], !dbg !53
  %13 = bitcast %struct.G* %guard to i8*, !dbg !53
  call void @llvm.lifetime.end.p0i8(i64 8, i8* %13) #6, !dbg !53
  cleanupret from %12 unwind label %ehcleanup7, !dbg !53

ehcleanup7:                                       ; preds = %ehcleanup5
  %14 = cleanuppad within none [], !dbg !53
  %15 = bitcast i32* %d to i8*, !dbg !53
  call void @llvm.lifetime.end.p0i8(i64 4, i8* %15) #6, !dbg !53
  cleanupret from %14 unwind to caller, !dbg !53

unreachable:                                      ; preds = %if.then
  unreachable
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.start.p0i8(i64 immarg, i8* nocapture) #2

declare dso_local i32 @__CxxFrameHandler3(...)

; Function Attrs: nounwind uwtable
define linkonce_odr dso_local void @"??1G@@QEAA@XZ"(%struct.G* noundef nonnull align 8 dereferenceable(8) %this) unnamed_addr #3 comdat align 2 !dbg !54 {
entry:
  %this.addr = alloca %struct.G*, align 8
  store %struct.G* %this, %struct.G** %this.addr, align 8, !tbaa !58
  call void @llvm.dbg.declare(metadata %struct.G** %this.addr, metadata !56, metadata !DIExpression()), !dbg !59
  %this1 = load %struct.G*, %struct.G** %this.addr, align 8
  %p = getelementptr inbounds %struct.G, %struct.G* %this1, i32 0, i32 0, !dbg !60
  %0 = load i32*, i32** %p, align 8, !dbg !60, !tbaa !40
  %1 = load i32, i32* %0, align 4, !dbg !60, !tbaa !14
  %inc = add nsw i32 %1, 1, !dbg !60
  store i32 %inc, i32* %0, align 4, !dbg !60, !tbaa !14
  ret void, !dbg !62
}

; Function Attrs: argmemonly nofree nosync nounwind willreturn
declare void @llvm.lifetime.end.p0i8(i64 immarg, i8* nocapture) #2

; Function Attrs: mustprogress nounwind uwtable
define dso_local noundef i32 @"?h@@YAHH@Z"(i32 noundef %x) #4 !dbg !63 {
entry:
  %retval = alloca i32, align 4
  %x.addr = alloca i32, align 4
  store i32 %x, i32* %x.addr, align 4, !tbaa !14
  call void @llvm.dbg.declare(metadata i32* %x.addr, metadata !65, metadata !DIExpression()), !dbg !67
  callbr void asm sideeffect "", "i,~{dirflag},~{fpsr},~{flags}"(i8* blockaddress(@"?h@@YAHH@Z", %out)) #6
          to label %asm.fallthrough [label %out], !dbg !68, !srcloc !69

asm.fallthrough:                                  ; preds = %entry
  %0 = load i32, i32* %x.addr, align 4, !dbg !70, !tbaa !14
  store i32 %0, i32* %retval, align 4, !dbg !70
  br label %return, !dbg !70

out:                                              ; preds = %entry
  call void @llvm.dbg.label(metadata !66), !dbg !71
  %1 = load i32, i32* %x.addr, align 4, !dbg !72, !tbaa !14
  %sub = sub nsw i32 0, %1, !dbg !72
  store i32 %sub, i32* %retval, align 4, !dbg !72
  br label %return, !dbg !72

return:                                           ; preds = %out, %asm.fallthrough
  %2 = load i32, i32* %retval, align 4, !dbg !73
  ret i32 %2, !dbg !73
}

; Function Attrs: nofree nosync nounwind readnone speculatable willreturn
declare void @llvm.dbg.label(metadata) #1

attributes #0 = { mustprogress uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #1 = { nofree nosync nounwind readnone speculatable willreturn }
attributes #2 = { argmemonly nofree nosync nounwind willreturn }
attributes #3 = { nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #4 = { mustprogress nounwind uwtable "frame-pointer"="none" "min-legal-vector-width"="0" "no-trapping-math"="true" "stack-protector-buffer-size"="8" "target-cpu"="x86-64" "target-features"="+cx8,+fxsr,+mmx,+sse,+sse2,+x87" "tune-cpu"="generic" }
attributes #5 = { noreturn }
attributes #6 = { nounwind }

!llvm.dbg.cu = !{!0}
!llvm.module.flags = !{!2, !3, !4, !5, !6}
!llvm.ident = !{!7}

!0 = distinct !DICompileUnit(language: DW_LANG_C_plus_plus_14, file: !1, producer: "Debian clang version 14.0.6", isOptimized: true, runtimeVersion: 0, emissionKind: FullDebug, splitDebugInlining: false, nameTableKind: None)
!1 = !DIFile(filename: "eh.cpp", directory: ".", checksumkind: CSK_MD5, checksum: "65c4efabed3d04adfea8b2dea155db68")
!2 = !{i32 2, !"CodeView", i32 1}
!3 = !{i32 2, !"Debug Info Version", i32 3}
!4 = !{i32 1, !"wchar_size", i32 2}
!5 = !{i32 7, !"PIC Level", i32 2}
!6 = !{i32 7, !"uwtable", i32 1}
!7 = !{!"Debian clang version 14.0.6"}
!8 = distinct !DISubprogram(name: "f", linkageName: "?f@@YAHH@Z", scope: !1, file: !1, line: 8, type: !9, scopeLine: 8, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !12)
!9 = !DISubroutineType(types: !10)
!10 = !{!11, !11}
!11 = !DIBasicType(name: "int", size: 32, encoding: DW_ATE_signed)
!12 = !{!13}
!13 = !DILocalVariable(name: "x", arg: 1, scope: !8, file: !1, line: 8, type: !11)
!14 = !{!15, !15, i64 0}
!15 = !{!"int", !16, i64 0}
!16 = !{!"omnipotent char", !17, i64 0}
!17 = !{!"Simple C++ TBAA"}
!18 = !DILocation(line: 8, scope: !8)
!19 = !DILocation(line: 9, scope: !8)
!20 = !DILocation(line: 10, scope: !21)
!21 = distinct !DILexicalBlock(scope: !8, file: !1, line: 9)
!22 = !DILocation(line: 11, scope: !8)
!23 = distinct !DISubprogram(name: "g", linkageName: "?g@@YAHH@Z", scope: !1, file: !1, line: 13, type: !9, scopeLine: 13, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !24)
!24 = !{!25, !26, !27, !36}
!25 = !DILocalVariable(name: "x", arg: 1, scope: !23, file: !1, line: 13, type: !11)
!26 = !DILocalVariable(name: "d", scope: !23, file: !1, line: 14, type: !11)
!27 = !DILocalVariable(name: "guard", scope: !23, file: !1, line: 15, type: !28)
!28 = distinct !DICompositeType(tag: DW_TAG_structure_type, name: "G", file: !1, line: 4, size: 64, flags: DIFlagTypePassByValue | DIFlagNonTrivial, elements: !29, identifier: ".?AUG@@")
!29 = !{!30, !32}
!30 = !DIDerivedType(tag: DW_TAG_member, name: "p", scope: !28, file: !1, line: 5, baseType: !31, size: 64)
!31 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !11, size: 64)
!32 = !DISubprogram(name: "~G", scope: !28, file: !1, line: 6, type: !33, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagOptimized)
!33 = !DISubroutineType(types: !34)
!34 = !{null, !35}
!35 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !28, size: 64, flags: DIFlagArtificial | DIFlagObjectPointer)
!36 = !DILocalVariable(name: "v", scope: !23, file: !1, line: 18, type: !11)
!37 = !DILocation(line: 13, scope: !23)
!38 = !DILocation(line: 14, scope: !23)
!39 = !DILocation(line: 15, scope: !23)
!40 = !{!41, !42, i64 0}
!41 = !{!"?AUG@@", !42, i64 0}
!42 = !{!"any pointer", !16, i64 0}
!43 = !DILocation(line: 17, scope: !44)
!44 = distinct !DILexicalBlock(scope: !23, file: !1, line: 16)
!45 = !DILocation(line: 18, scope: !44)
!46 = !DILocation(line: 18, scope: !23)
!47 = !DILocation(line: 19, scope: !48)
!48 = distinct !DILexicalBlock(scope: !23, file: !1, line: 18)
!49 = !DILocation(line: 20, scope: !50)
!50 = distinct !DILexicalBlock(scope: !48, file: !1, line: 19)
!51 = !DILocation(line: 21, scope: !48)
!52 = !DILocation(line: 22, scope: !48)
!53 = !DILocation(line: 23, scope: !23)
!54 = distinct !DISubprogram(name: "~G", linkageName: "??1G@@QEAA@XZ", scope: !28, file: !1, line: 6, type: !33, scopeLine: 6, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, declaration: !32, retainedNodes: !55)
!55 = !{!56}
!56 = !DILocalVariable(name: "this", arg: 1, scope: !54, type: !57, flags: DIFlagArtificial | DIFlagObjectPointer)
!57 = !DIDerivedType(tag: DW_TAG_pointer_type, baseType: !28, size: 64)
!58 = !{!42, !42, i64 0}
!59 = !DILocation(line: 0, scope: !54)
!60 = !DILocation(line: 6, scope: !61)
!61 = distinct !DILexicalBlock(scope: !54, file: !1, line: 6)
!62 = !DILocation(line: 6, scope: !54)
!63 = distinct !DISubprogram(name: "h", linkageName: "?h@@YAHH@Z", scope: !1, file: !1, line: 24, type: !9, scopeLine: 24, flags: DIFlagPrototyped, spFlags: DISPFlagDefinition | DISPFlagOptimized, unit: !0, retainedNodes: !64)
!64 = !{!65, !66}
!65 = !DILocalVariable(name: "x", arg: 1, scope: !63, file: !1, line: 24, type: !11)
!66 = !DILabel(scope: !63, name: "out", file: !1, line: 27)
!67 = !DILocation(line: 24, scope: !63)
!68 = !DILocation(line: 25, scope: !63)
!69 = !{i64 501}
!70 = !DILocation(line: 26, scope: !63)
!71 = !DILocation(line: 27, scope: !63)
!72 = !DILocation(line: 28, scope: !63)
!73 = !DILocation(line: 29, scope: !63)
